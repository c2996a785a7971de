package simhttp

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/httpapi/deadline"
)

// Under the simulator's screen the driver takes no faults (its keys are
// the faults): /faults/… is a 404 that says which commands serve them,
// not the API's "no such resource".
func TestFaultsUnderTheScreenSayWhereTheyAre(t *testing.T) {
	e := listen(t, true, deadline.Deadlines{})
	for _, m := range []string{"POST", "GET"} {
		req, _ := http.NewRequest(m, "http://"+e.Addr+"/faults/crash/relay-1", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "outboxlab serve --http") {
			t.Errorf("%s /faults/crash/relay-1: %s %s, want 404 naming serve", m, resp.Status, body)
		}
	}
}
