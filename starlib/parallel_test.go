package starlib

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/engine/server"
)

// cancelOnWork is a progress Reporter that cancels the script at the first
// report of a test that has counted work, so the cancel lands inside a
// measured interval however long a loaded machine takes to set it up.
type cancelOnWork struct {
	cancel context.CancelFunc
	once   sync.Once
}

func (c *cancelOnWork) Test(p client.Progress) {
	if p.Transactions > 0 || p.Bytes > 0 {
		c.once.Do(c.cancel)
	}
}
func (c *cancelOnWork) Iteration(string, int, int) {}
func (c *cancelOnWork) Done()                      {}

// hangGuard bounds how long a script whose 30 s tests were stopped may
// take: far more than a loaded machine needs, far less than the tests.
const hangGuard = 15 * time.Second

// TestParallelStops: an error in one branch stops the others at once
// (their tests end within a tick, long before their 30 s), and cancelling
// the script stops every branch.
func TestParallelStops(t *testing.T) {
	th, _ := newTestThread(t)
	start := time.Now()
	_, err := starlark.ExecFileOptions(FileOptions(), th, "p.star", `
def late():
    tcp_rr(duration = 0.3)
    fail("late failure")
parallel([lambda: tcp_rr(duration = 30), late, lambda: udp_rr(duration = 30)])
`, Predeclared())
	if err == nil || !strings.Contains(err.Error(), "parallel: branch 1: fail: late failure") {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took > hangGuard {
		t.Errorf("the other branches took %v to stop", took)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	th, env := newTestThread(t)
	env.Progress = &cancelOnWork{cancel: cancel}
	SetContext(th, ctx)
	start = time.Now()
	_, err = starlark.ExecFileOptions(FileOptions(), th, "p.star",
		`parallel([lambda: tcp_rr(duration = 30), lambda: tcp_stream(duration = 30)])`, Predeclared())
	if err == nil || time.Since(start) > hangGuard {
		t.Fatalf("cancel: %v after %v", err, time.Since(start))
	}
}

// TestParallelClients: tests whose client sides run on two daemons, in
// parallel, start together and come back with both ends' figures. Their
// starts are on one clock here; how closely they agree (a few ms on an
// idle machine) depends on how fast each daemon is woken, so what is
// asserted is the order that starting together implies: each test began
// before every other one ended, so all of them ran at one time.
func TestParallelClients(t *testing.T) {
	var addrs []string
	for i := 0; i < 2; i++ {
		srv := server.New(server.Config{Version: "test"})
		a, err := srv.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		addrs = append(addrs, a.String())
	}
	host := func(a string) string {
		h, p, _ := strings.Cut(a, ":")
		return fmt.Sprintf("host = %q, port = %s", h, p)
	}
	code := fmt.Sprintf(`
rs = parallel([
    lambda: tcp_rr(%s, client = %q, duration = 0.3),
    lambda: tcp_rr(%s, client = %q, duration = 0.3, flows = 2),
    lambda: tcp_stream(%s, duration = 0.3),
])
`, host(addrs[1]), addrs[0], host(addrs[0]), addrs[1], host(addrs[0]))
	th, _ := newTestThread(t)
	g, err := starlark.ExecFileOptions(FileOptions(), th, "p.star", code, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	rs := g["rs"].(*starlark.List)
	var starts, ends []float64
	for i := 0; i < rs.Len(); i++ {
		r := rs.Index(i)
		for _, f := range []string{"transactions", "remote.transactions", "start"} {
			if _, err := Field(r, f); err != nil {
				t.Fatal(err)
			}
		}
		v, _ := Field(r, "start")
		s, _ := Number(v)
		v, _ = Field(r, "elapsed")
		e, _ := Number(v)
		starts, ends = append(starts, s), append(ends, s+e)
		c, _ := Field(r, "config.client")
		if want := []string{addrs[0], addrs[1], ""}[i]; c.(starlark.String) != starlark.String(want) {
			t.Errorf("result %d: config.client %v, want %q", i, c, want)
		}
	}
	for i, s := range starts {
		t.Logf("result %d started %v after result 0", i, time.Duration((s-starts[0])*1e9))
		for j, e := range ends {
			if s >= e {
				t.Errorf("result %d started %v after result %d ended", i, time.Duration((s-e)*1e9), j)
			}
		}
	}
}
