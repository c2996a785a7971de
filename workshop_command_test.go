package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestWorkshopRefusesAnOpenRoomOnTheNetwork: `outboxlab workshop` on a
// non-loopback address with neither --password nor --authorized-keys exits
// 2 saying why, before PostgreSQL boots; so do a missing keys file and
// --database-url.
func TestWorkshopRefusesAnOpenRoomOnTheNetwork(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"workshop", "--ssh", "0.0.0.0:2222"}, "give --password PW (say it in the room) or --authorized-keys FILE"},
		{[]string{"workshop", "--ssh", "127.0.0.1:2222", "--authorized-keys", "/nonexistent/keys"}, "--authorized-keys: open /nonexistent/keys"},
		{[]string{"workshop", "--database-url", "postgres://x@127.0.0.1:1/x"}, "needs a PostgreSQL of its own"},
		{[]string{"workshop", "--max-learners", "0"}, "--max-learners 0"},
		{[]string{"workshop", "--no-report", "--report", "/tmp/class"}, "--report /tmp/class with --no-report"},
		{[]string{"workshop", "--web", "127.0.0.1:0", "--web-trust-proxy", "proxy.local"}, "--web-trust-proxy \"proxy.local\""},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut.String(), c.want)
		}
	}
}
