// Package enginetest holds what the tests of the engine and of the packages
// built on it share. It imports nothing of the engine, so the engine's own
// tests can use it too.
package enginetest
