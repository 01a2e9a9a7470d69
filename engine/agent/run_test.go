package agent_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"netscript/engine/agent"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/result"
	"netscript/engine/server"
	"netscript/engine/sock/socktest"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// startDaemon is a daemon on loopback that also runs the client side of
// tests for scripts, within lim (the defaults if zero).
func startDaemon(t *testing.T, th *workload.Threads, lim limits.Limits) netip.AddrPort {
	t.Helper()
	srv := server.New(server.Config{Version: "test", Threads: th, Limits: lim, Agent: &agent.Agent{Threads: th, Limits: lim}})
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return netip.MustParseAddrPort(a.String())
}

// specFor is a test of w against the server at ap.
func specFor(w *spec.Workload, ap netip.AddrPort) spec.Spec {
	s := spec.Default(w)
	s.Host, s.Port = ap.Addr().String(), int(ap.Port())
	return s
}

// TestRemoteClient: a daemon runs the client side toward another server
// and sends the whole result back, histograms included, so results
// aggregate exactly; a stop from the script ends it early with what it
// measured.
func TestRemoteClient(t *testing.T) {
	th := &workload.Threads{}
	a, b := startDaemon(t, th, limits.Limits{}), startDaemon(t, th, limits.Limits{})
	s := specFor(spec.TCPRR, b)
	s.Client = a.String()
	s.Flows, s.Transactions, s.Duration = 3, 300, 0
	res, err := agent.Run(context.Background(), s, client.Options{Threads: th})
	if err != nil {
		t.Fatal(err)
	}
	if res.Transactions != 900 || res.Hist == nil || res.Hist.Count() != 900 || len(res.Flows) != 3 {
		t.Fatalf("%d transactions, histogram %v, %d flows", res.Transactions, res.Hist, len(res.Flows))
	}
	for i, f := range res.Flows {
		if f.Hist == nil || f.Hist.Count() != 300 || f.Remote == nil || f.Remote.Transactions != 300 {
			t.Errorf("flow %d: histogram %v, remote %+v", i, f.Hist, f.Remote)
		}
	}
	if res.Config.Client != a.String() || res.Remote == nil || res.Remote.Transactions != 900 {
		t.Errorf("config.client %q, remote %+v", res.Config.Client, res.Remote)
	}
	agg, err := result.Aggregate([]*result.Result{res, res})
	if err != nil || agg.Latency.Count != 1800 {
		t.Errorf("aggregate: %v %+v", err, agg.Latency)
	}

	// Cancelled: the daemon stops its test and sends what it measured.
	// The cancel comes half a second into the measured interval, whose
	// start the gate gives, so it finds the daemon measuring however long
	// a loaded machine took to set the test up.
	s = specFor(spec.TCPRR, b)
	s.Client, s.Duration = a.String(), 30*time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &cancelGate{cancel: cancel, after: 500 * time.Millisecond}
	res, err = agent.Run(ctx, s, client.Options{Threads: th, Gate: g})
	var te *client.TestError
	if !errors.As(err, &te) || res == nil || res.Transactions == 0 {
		t.Fatalf("cancelled: %v, %+v", err, res)
	}
	if took := time.Since(g.start); took > hangGuard {
		t.Errorf("a cancelled remote test took %v after its start to end", took)
	}
}

// hangGuard bounds how long a cancelled 30 s test may take to return: far
// more than a loaded machine needs, far less than the test's duration.
const hangGuard = 15 * time.Second

// cancelGate releases one test and cancels it after its measured interval
// has run for a while.
type cancelGate struct {
	cancel context.CancelFunc
	after  time.Duration
	start  time.Time
}

func (g *cancelGate) Arrive(ctx context.Context, lead time.Duration) (time.Time, error) {
	g.start = time.Now().Add(lead + 5*time.Millisecond)
	time.AfterFunc(time.Until(g.start)+g.after, g.cancel)
	return g.start, nil
}

// TestRemoteClientBad: a daemon that is not there, a test the daemon
// refuses, and a test that fails on the daemon are errors that name the
// daemon and the cause.
func TestRemoteClientBad(t *testing.T) {
	th := &workload.Threads{}
	a, b := startDaemon(t, th, limits.Limits{}), startDaemon(t, th, limits.Limits{})
	taken := socktest.Reserve(t, false) // a source port held on the daemon's machine
	for _, c := range []struct {
		name string
		set  func(s *spec.Spec)
		want string
	}{
		{"no daemon there", func(s *spec.Spec) { s.Client = "127.0.0.1:1" }, "client: dial 127.0.0.1:1: connection refused"},
		{"a bad port", func(s *spec.Spec) { s.Client = "127.0.0.1:99999" }, "client: \"127.0.0.1:99999\": the port must be in 1-65535"},
		{"set-up fails there", func(s *spec.Spec) { s.Local, s.LocalPort = "127.0.0.1", taken },
			fmt.Sprintf("client %s: tcp_rr: local: bind 127.0.0.1:%d: address already in use", a, taken)},
		{"the server is not there", func(s *spec.Spec) { s.Port = 1 }, "client " + a.String() + ": tcp_rr: dial 127.0.0.1:1: connection refused"},
	} {
		s := specFor(spec.TCPRR, b)
		s.Client, s.Duration = a.String(), 100*time.Millisecond
		c.set(&s)
		_, err := agent.Run(context.Background(), s, client.Options{Threads: th})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
