package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// BenchmarkChaos runs compare-mode schedules through Run, as `outboxlab
// chaos` does, parallel at a time, and reports schedules/s and where a
// run's time goes: renewing the session (emptying two databases, starting
// every actor), the schedule's commands, the let-go-and-drain, and the
// oracle's read with the checks. cpu-ms is the CPU a run costs, this process
// and the PostgreSQL server together: on a busy machine it moves less than
// the wall-clock figures.
//
//	go test ./chaos -run '^$' -bench BenchmarkChaos -benchtime 100x
func BenchmarkChaos(b *testing.B) {
	ctx := context.Background()
	srv := pgtest.Server(b)
	for _, parallel := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("parallel=%d", parallel), func(b *testing.B) {
			start, cpu := time.Now(), cpuUsed(srv)
			outs, err := Run(ctx, srv, 1, 0, b.N, parallel, Options{}, "bench", nil)
			if err != nil {
				b.Fatal(err)
			}
			took, cpu := time.Since(start), cpuUsed(srv)-cpu
			var sum phases
			for _, o := range outs {
				if o.Violated() {
					b.Errorf("run %d broke %v", o.Index, o.Broken)
				}
				sum.build += o.phases.build
				sum.commands += o.phases.commands
				sum.drain += o.phases.drain
				sum.oracle += o.phases.oracle
			}
			n := float64(b.N)
			ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / n }
			b.ReportMetric(n/took.Seconds(), "schedules/s")
			b.ReportMetric(ms(cpu), "cpu-ms")
			b.ReportMetric(ms(sum.build), "build-ms")
			b.ReportMetric(ms(sum.commands), "commands-ms")
			b.ReportMetric(ms(sum.drain), "drain-ms")
			b.ReportMetric(ms(sum.oracle), "oracle-ms")
		})
	}
}

// cpuUsed is the CPU time used so far by this process and by the server's
// postmaster with its backends (running, and exited: reaped by it), or this
// process's alone when the server is not one this machine runs.
func cpuUsed(srv *pg.Server) time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	raw, err := os.ReadFile(filepath.Join(srv.PGData, "postmaster.pid"))
	if srv.External() || err != nil {
		return total
	}
	pm, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	if err != nil {
		return total
	}
	// /proc/PID/stat after the command's closing parenthesis: state, ppid,
	// ... utime and stime are fields 12 and 13 there, cutime and cstime 14
	// and 15, in clock ticks (100 a second).
	stat := func(pid string) (ppid int, self, children int64) {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return 0, 0, 0
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		n := func(i int) int64 { v, _ := strconv.ParseInt(f[i], 10, 64); return v }
		ppid, _ = strconv.Atoi(f[1])
		return ppid, n(11) + n(12), n(13) + n(14)
	}
	_, self, children := stat(strconv.Itoa(pm))
	ticks := self + children
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		if ppid, self, _ := stat(e.Name()); ppid == pm {
			ticks += self
		}
	}
	return total + time.Duration(ticks)*10*time.Millisecond
}
