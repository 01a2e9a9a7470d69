package monitor

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"netscript/engine/result"
	"netscript/session"
)

// TestLoop holds the loop's promises: runs never overlap, a failed run is
// counted and the loop goes on, the figures are the latest good run's,
// and cancelling ends it.
func TestLoop(t *testing.T) {
	var inFlight, overlaps, calls atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := 1.0
	m := New(Config{Every: 5 * time.Millisecond, Jitter: 0.5, Run: func(ctx context.Context) (Outcome, error) {
		if inFlight.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer inFlight.Add(-1)
		n := calls.Add(1)
		if n == 6 {
			cancel()
		}
		if n%2 == 0 {
			return Outcome{}, errors.New("broken")
		}
		return Outcome{
			Results: []*result.Result{{Test: "TCP_RR", Brand: "b", Units: result.UnitsTrans, Throughput: float64(n), Transactions: uint64(n)}},
			Checks:  []session.Check{{Name: "c", Pass: n != 5, Value: &v}},
		}, nil
	}})
	done := make(chan struct{})
	go func() { m.Loop(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the loop did not end when its context did")
	}
	if overlaps.Load() != 0 {
		t.Errorf("%d runs overlapped", overlaps.Load())
	}
	// Runs 1, 3, 5 ran (5 with a failed check), 2 and 4 failed; 6 was cut short.
	for status, want := range map[string]float64{"ok": 2, "checks_failed": 1, "failed": 2} {
		if got := testutil.ToFloat64(m.counters.runs.WithLabelValues(status)); got != want {
			t.Errorf("runs_total{status=%q} = %v, want %v", status, got, want)
		}
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`netscript_throughput{brand="b",host="embedded",units="Trans/s",workload="tcp_rr"} 5`,
		`netscript_check_pass{brand="",check="c",host="",workload=""} 0`,
		`netscript_check_failures_total{check="c"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s:\n%s", want, body)
		}
	}
}
