package concurrency_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"

	"netscript/engine/agent"
	"netscript/engine/server"
	"netscript/internal/startest"
	"netscript/internal/stoptest"
	"netscript/starlib"
	"netscript/starlib/concurrency"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// TestParallelStops: an error in one branch stops the others at once
// (their tests end within a tick, long before their 30 s), and cancelling
// the script stops every branch.
func TestParallelStops(t *testing.T) {
	th, _ := startest.NewThread(t)
	start := time.Now()
	_, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "p.star", `
def late():
    tcp_rr(transactions = 20)
    fail("late failure")
parallel([lambda: tcp_rr(duration = 30), late, lambda: udp_rr(duration = 30)])
`, starlib.Predeclared())
	if err == nil || !strings.Contains(err.Error(), "parallel: branch 1: fail: late failure") {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took > stoptest.HangGuard {
		t.Errorf("the other branches took %v to stop", took)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	th, env := startest.NewThread(t)
	env.Progress = &stoptest.OnWork{Cancel: cancel}
	thread.SetContext(th, ctx)
	start = time.Now()
	_, err = starlark.ExecFileOptions(starlib.FileOptions(), th, "p.star",
		`parallel([lambda: tcp_rr(duration = 30), lambda: tcp_stream(duration = 30)])`, starlib.Predeclared())
	if err == nil || time.Since(start) > stoptest.HangGuard {
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
		srv := server.New(server.Config{Version: "test", Agent: &agent.Agent{}})
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
    lambda: tcp_rr(%s, client = %q, duration = 1),
    lambda: tcp_rr(%s, client = %q, duration = 1, flows = 2),
    lambda: tcp_stream(%s, duration = 1),
])
`, host(addrs[1]), addrs[0], host(addrs[0]), addrs[1], host(addrs[0]))
	th, _ := startest.NewThread(t)
	g, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "p.star", code, starlib.Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	rs := g["rs"].(*starlark.List)
	var starts, ends []float64
	for i := 0; i < rs.Len(); i++ {
		r := rs.Index(i)
		for _, f := range []string{"transactions", "remote.transactions", "start"} {
			if _, err := values.Field(r, f); err != nil {
				t.Fatal(err)
			}
		}
		v, _ := values.Field(r, "start")
		s, _ := values.Number(v)
		v, _ = values.Field(r, "elapsed")
		e, _ := values.Number(v)
		starts, ends = append(starts, s), append(ends, s+e)
		c, _ := values.Field(r, "config.client")
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

// execShared runs code as netscript runs a script (ExecFile, which keeps
// its syntax) or, with fallback, through starlark.ExecFileOptions, whose
// functions parallel() knows nothing of; assert.star can be loaded.
func execShared(t *testing.T, code string, fallback bool) (starlark.StringDict, error) {
	t.Helper()
	th, _ := startest.NewThread(t)
	th.Load = func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
		if module == "assert.star" {
			return starlarktest.LoadAssertModule()
		}
		return nil, fmt.Errorf("no module %s here", module)
	}
	if fallback {
		return starlark.ExecFileOptions(starlib.FileOptions(), th, "p.star", code, starlib.Predeclared())
	}
	return starlib.ExecFile(th, "p.star", code, starlib.Predeclared())
}

// TestParallelFreezesShared: branches that change a value they share fail
// with Starlark's own frozen-value error, with the branch's index and the
// line that tried, and the value is unchanged. Run under -race: without
// the freezing the appends race in list_append.
func TestParallelFreezesShared(t *testing.T) {
	cases := []struct {
		name, code string
		want       *regexp.Regexp
	}{
		// A global list, from a def and from a lambda.
		{"global list", `
shared = []
def add():
    shared.append(1)
parallel([add, lambda: shared.append(2), add])
`, regexp.MustCompile(`^parallel: branch [0-2]: append: cannot append to frozen list \(p\.star:(4:18|5:37): the branches of parallel\(\) share this value, so it is frozen; return what a branch makes instead\)$`)},
		// A list a function's lambdas close over.
		{"closure", `
shared = None
def run():
    acc = []
    parallel([lambda: acc.append(1), lambda: acc.extend([2])])
run()
`, regexp.MustCompile(`^parallel: branch [01]: (append: cannot append to|extend: cannot extend) frozen list \(p\.star:5:`)},
		// A dict, changed by assignment, reached through a function that
		// the branch calls.
		{"dict through a call", `
shared = {}
def put(k):
    shared[k] = 1
parallel([lambda: put("a"), lambda: put("b")])
`, regexp.MustCompile(`^parallel: branch [01]: cannot insert into frozen hash table \(p\.star:4:11: `)},
	}
	for _, c := range cases {
		for _, fallback := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fallback=%v", c.name, fallback), func(t *testing.T) {
				g, err := execShared(t, c.code, fallback)
				var ee *starlark.EvalError
				if !errors.As(err, &ee) || !c.want.MatchString(ee.Msg) {
					t.Fatalf("got %v\nwant %s", err, c.want)
				}
				var be *concurrency.BranchError
				if !errors.As(err, &be) {
					t.Errorf("%v is no BranchError", err)
				}
				if n := starlark.Len(g["shared"]); n > 0 {
					t.Errorf("shared was changed: %v", g["shared"])
				}
			})
		}
	}
}

// TestParallelSharedReads: the usual patterns still work: lambdas calling
// workloads with options from shared globals, branches iterating one
// shared list at once, a function called by name; and the script goes on
// changing the globals no branch used. What a branch used stays frozen.
func TestParallelSharedReads(t *testing.T) {
	code := `
load("assert.star", "assert")
target = {"transactions": 20}
sizes = [1, 64]
rows = []
def probe():
    return [tcp_rr(request = s, response = s, **target).config.request for s in sizes]
for n in [1, 2]:
    bulk, sized, again = parallel([lambda: tcp_stream(bytes = "256K", flows = n), probe, probe])
    rows.append((n, bulk.test, bulk.config.flows, sized, again))
assert.eq(rows, [(1, "TCP_STREAM", 1, [1, 64], [1, 64]), (2, "TCP_STREAM", 2, [1, 64], [1, 64])])
rows.append("still mutable")
assert.fails(lambda: sizes.append(3), "cannot append to frozen list")
assert.fails(lambda: target.update(brand = "x"), "frozen")
`
	if _, err := execShared(t, code, false); err != nil {
		var ee *starlark.EvalError
		if errors.As(err, &ee) {
			t.Fatal(ee.Backtrace())
		}
		t.Fatal(err)
	}
}
