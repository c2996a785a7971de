package launch

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine/jetstream"
)

// The start's stream line names the leader, and says there is none yet
// when the server's info names none (right after its replicas were
// updated, or during an election), not an empty 'leader ;'.
func TestStreamLineSaysWhenTheStreamHasNoLeader(t *testing.T) {
	s := jetstream.StreamSettings{Name: "OUTBOXLAB_LIVE_X", Replicas: 3, Retention: "limits", PurgeAcked: true,
		Duplicates: 2 * time.Minute, AckWait: 30 * time.Second, Cluster: "c", Leader: "n2", Peers: []string{"n1", "n3"}}
	if got := StreamLine(s); !strings.Contains(got, "3 replicas on cluster c (leader n2; copies on n1, n3)") {
		t.Errorf("with a leader: %q", got)
	}
	s.Leader = ""
	if got := StreamLine(s); !strings.Contains(got, "(no leader yet; copies on n1, n3)") || strings.Contains(got, "leader ;") {
		t.Errorf("with no leader: %q", got)
	}
}
