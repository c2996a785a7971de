// Package pgtest gives tests a real PostgreSQL: one embedded server per test
// binary, booted on first use, and a fresh migrated database per test so tests
// run in parallel without seeing each other's rows.
//
// A test that restarts the server, or that compares figures the whole server
// moves (the WAL a slot retains, the open transactions making a slot waits
// for), takes a quiet server instead: one of its own while it runs, so the
// rest of the package runs in parallel on the shared one.
//
// A package that uses it must stop the servers when its tests end:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
package pgtest
