// Package badinput marks an error as the user's to fix (a flag, a name, an
// address, a file they gave, a server they pointed at) rather than the
// machine's. The command line exits 2 for it and 1 for any other failure;
// packages return it, and only package cli turns it into an exit code.
package badinput
