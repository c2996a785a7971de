// Package golden compares what a test made with a file under testdata/ and,
// under -update, writes it there instead: the one helper and the one flag
// with which every package refreshes its golden files
// (go test ./ui -run TestGolden -update).
package golden
