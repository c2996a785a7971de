package deploy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// One deployment per database: a second Claim is refused with who holds
// it; once the first releases (or its process dies: the lock is its
// session's), the next one gets it.
func TestClaimKeepsASecondDeploymentOff(t *testing.T) {
	t.Parallel()
	_, db := pgtest.DB(t)
	url := pgtest.Server(t).DatabaseURL(db)
	ctx := context.Background()
	release, err := Claim(ctx, url, "outboxlab serve pid 1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Claim(ctx, url, "outboxlab live pid 2"); !errors.Is(err, ErrClaimed) || !strings.Contains(err.Error(), "outboxlab serve pid 1") {
		t.Fatalf("second claim: %v, want ErrClaimed naming the first", err)
	}
	release()
	// A release is over when it returns: the next claim, at once, gets
	// the lock, however many times over (a closed session's lock used to
	// outlive it until its backend ended).
	for i := range 50 {
		release, err = Claim(ctx, url, fmt.Sprintf("outboxlab live pid %d", i+2))
		if err != nil {
			t.Fatalf("claim %d after a release: %v", i+2, err)
		}
		release()
	}
}
