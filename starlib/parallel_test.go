package starlib

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/server"
	"netscript/starlib/output"
)

// TestParallelStops: an error in one branch stops the others at once
// (their tests end within a tick), and cancelling the script stops every
// branch.
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
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the other branches took %v to stop", took)
	}

	ctx, cancel := context.WithCancel(context.Background())
	th, _ = newTestThread(t)
	SetContext(th, ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	start = time.Now()
	_, err = starlark.ExecFileOptions(FileOptions(), th, "p.star",
		`parallel([lambda: tcp_rr(duration = 30), lambda: tcp_stream(duration = 30)])`, Predeclared())
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("cancel: %v after %v", err, time.Since(start))
	}
}

// TestParallelClients: tests whose client sides run on two daemons, in
// parallel, start together (their results' starts agree within a few ms
// on one clock) and come back with both ends' figures.
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
	var starts []float64
	for i := 0; i < rs.Len(); i++ {
		r := rs.Index(i)
		for _, f := range []string{"transactions", "remote.transactions", "start"} {
			if _, err := output.Field(r, f); err != nil {
				t.Fatal(err)
			}
		}
		v, _ := output.Field(r, "start")
		s, _ := Number(v)
		starts = append(starts, s)
		c, _ := output.Field(r, "config.client")
		if want := []string{addrs[0], addrs[1], ""}[i]; c.(starlark.String) != starlark.String(want) {
			t.Errorf("result %d: config.client %v, want %q", i, c, want)
		}
	}
	for i, s := range starts {
		d := time.Duration((s - starts[0]) * 1e9)
		if d > 5*time.Millisecond || d < -5*time.Millisecond {
			t.Errorf("result %d started %v after result 0", i, d)
		}
		t.Logf("result %d started %v after result 0", i, d)
	}
}
