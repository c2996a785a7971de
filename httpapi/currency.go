package httpapi

import (
	"slices"

	iso "golang.org/x/text/currency"
)

// isISO4217 reports whether code (three capital letters) is an ISO 4217
// currency code: one golang.org/x/text/currency knows, or one ISO added
// after the CLDR release its table comes from (CLDR 32, 2017).
func isISO4217(code string) bool {
	if _, err := iso.ParseISO(code); err == nil {
		return true
	}
	return slices.Contains(addedSinceCLDR32, code)
}

// addedSinceCLDR32 are the codes ISO 4217 added after x/text's table: a
// payment in bolívares or leones is not a client's mistake.
var addedSinceCLDR32 = []string{
	"VES", // Venezuela, 2018
	"VED", // Venezuela, digital bolívar, 2021
	"SLE", // Sierra Leone, 2022
	"ZWG", // Zimbabwe Gold, 2024
	"XCG", // Caribbean guilder (Curaçao, Sint Maarten), 2025
}
