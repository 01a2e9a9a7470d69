package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"netscript/engine/agent"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestRunClientLimits: a daemon asked to run a test's client side (a
// script's client= option) holds that test to its own bounds, as it would
// a test it serves: flows, message sizes and its own socket buffers over
// --max-flows, --max-message and --max-buffer are refused before anything
// is spent, with the flag named; a test within them runs.
func TestRunClientLimits(t *testing.T) {
	l := limits.Default()
	l.MaxFlows, l.MaxMessage, l.MaxBuffer = 2, 1024, 1<<20
	th := &workload.Threads{}
	a, b := startDaemon(t, th, l), startDaemon(t, th, limits.Limits{})
	for _, tc := range []struct {
		name string
		set  func(*spec.Spec)
		want string // "" if the test runs
	}{
		{"within", func(s *spec.Spec) { s.Flows, s.Request = 2, 512 }, ""},
		{"flows", func(s *spec.Spec) { s.Flows = 3 }, "flows 3 exceeds this server's limit of 2"},
		{"request", func(s *spec.Spec) { s.Request = 4096 }, "request size 4096 bytes exceeds this server's limit of 1024 bytes"},
		{"response", func(s *spec.Spec) { s.Response = 2048 }, "response size 2048 bytes exceeds"},
		{"send buffer", func(s *spec.Spec) { s.SendBuffer = 4 << 20 }, "send buffer 4194304 bytes exceeds this server's limit of 1048576 bytes"},
		{"stream send size", func(s *spec.Spec) { *s = spec.Default(spec.TCPStream); s.SendSize = 1 << 16 }, "send size 65536 bytes exceeds"},
		{"duration", func(s *spec.Spec) { s.Duration = 2 * time.Hour }, "duration 2h0m0s exceeds this server's limit of 1h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec.Default(spec.TCPRR)
			s.Duration = 300 * time.Millisecond
			tc.set(&s)
			s.Host, s.Port = b.Addr().String(), int(b.Port())
			s.Client = a.String()
			r, err := agent.Run(context.Background(), s, client.Options{Threads: th})
			if tc.want == "" {
				if err != nil || r == nil || r.Transactions == 0 {
					t.Fatalf("a test within the bounds: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "this daemon will not run the test") {
				t.Errorf("the error does not say which end refused: %v", err)
			}
		})
	}
}

// TestNoAgent: a daemon without an agent refuses to run a test's client
// side, saying so; one with an agent refuses a test that hands the client
// side on again.
func TestNoAgent(t *testing.T) {
	th := &workload.Threads{}
	srv := server.New(server.Config{Version: "test", Threads: th})
	t.Cleanup(func() { srv.Close() })
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := startDaemon(t, th, limits.Limits{})
	s := specFor(spec.TCPRR, b)
	s.Client, s.Duration = a.String(), 100*time.Millisecond
	if _, err := agent.Run(context.Background(), s, client.Options{Threads: th}); err == nil ||
		!strings.Contains(err.Error(), "does not run the client side of tests for scripts") {
		t.Errorf("a daemon without an agent: %v", err)
	}
	if _, err := client.Run(context.Background(), s, client.Options{Threads: th}); err == nil || !strings.Contains(err.Error(), "agent.Run") {
		t.Errorf("client.Run with client set: %v", err)
	}
}

// TestRunClientThreadBudget: the client side a daemon runs for a script
// is charged to the daemon's thread budget, as the tests it serves are; a
// test that does not fit is refused with the flag named, and the budget
// is whole again afterwards.
func TestRunClientThreadBudget(t *testing.T) {
	th := &workload.Threads{Max: 3}
	a, b := startDaemon(t, th, limits.Limits{}), startDaemon(t, &workload.Threads{}, limits.Limits{})
	s := specFor(spec.TCPRR, b)
	s.Duration, s.Flows = 300*time.Millisecond, 4 // a thread per flow on the client side
	s.Client = a.String()
	_, err := agent.Run(context.Background(), s, client.Options{Threads: &workload.Threads{}})
	if err == nil || !strings.Contains(err.Error(), "this daemon's threads: the test needs 4 data-path threads, more than the budget of 3") {
		t.Fatalf("got %v", err)
	}
	s.Flows = 2
	if r, err := agent.Run(context.Background(), s, client.Options{Threads: &workload.Threads{}}); err != nil || r.Transactions == 0 {
		t.Fatalf("a test within the budget: %v", err)
	}
	for deadline := time.Now().Add(15 * time.Second); th.InUse() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d threads still charged", th.InUse())
		}
	}
}
