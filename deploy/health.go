package deploy

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/outboxlab/outboxlab/httpapi"
)

// healthz answers 200 while the process serves: alive, whatever the
// database and the broker are doing (an orchestrator restarts a process
// whose liveness fails, which would not bring either back).
func (d *Deployment) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "alive")
}

// readyz answers 200 when the deployment can take payments: its database
// answers within a second. The broker is not asked: a payment waits in the
// outbox while it is away, which is what the outbox is for; the answer
// says how the broker is, for a person reading it.
func (d *Deployment) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	if err := d.pool.Ping(ctx); err != nil {
		httpapi.WriteProblem(w, http.StatusServiceUnavailable, "not ready: the database does not answer, so no payment can be taken: "+err.Error())
		return
	}
	st := d.link.state()
	broker := "up"
	if !st.Up {
		broker = fmt.Sprintf("down since %s (%v): payments wait in the outbox", st.Since.Format(time.RFC3339), st.Cause)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "ready: the database answers; broker %s\n", broker)
}
