// Command crosscheck type-checks the module for each release target, as
// GOOS/GOARCH with CGO_ENABLED=0 would compile it, without compiling: CI
// runs it because a cold cross-build of the whole binary for the four
// other targets takes about nine minutes on two cores, and a type-check of
// every package the binary links, from source, about fifteen seconds a
// target. What a cross-build finds that this does not is a failure of the
// linker, which build tags do not cause; scripts/release links all five.
//
//	go run ./internal/crosscheck [-pattern ./...] linux/arm64 windows/amd64 ...
//
// It exits 1 when a package does not type-check for a target, naming the
// target and the error, and 2 on a target it cannot read.
package main
