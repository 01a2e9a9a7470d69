package session

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/sock/socktest"
	"netscript/engine/spec"
)

// newSession returns a session whose output is discarded, closed when the
// test ends.
func newSession(t *testing.T) *Session {
	t.Helper()
	s := New("test")
	s.Stdout, s.Stderr = io.Discard, io.Discard
	t.Cleanup(func() { s.Close() })
	return s
}

// fakeReporter records what a display is given.
type fakeReporter struct {
	mu      sync.Mutex
	tests   int
	done    int
	interim []client.Interim
}

func (f *fakeReporter) Test(client.Progress)       { f.mu.Lock(); f.tests++; f.mu.Unlock() }
func (f *fakeReporter) Iteration(string, int, int) {}
func (f *fakeReporter) Done()                      { f.mu.Lock(); f.done++; f.mu.Unlock() }

type interimReporter struct{ fakeReporter }

func (f *interimReporter) Interim(i client.Interim) {
	f.mu.Lock()
	f.interim = append(f.interim, i)
	f.mu.Unlock()
}

// stream is a tcp_stream spec with interim samples: three, or fewer on a
// machine so loaded that the sampler wakes late (the tests count what the
// result kept).
func stream(t *testing.T) spec.Spec {
	t.Helper()
	s := spec.Default(spec.TCPStream)
	s.Duration, s.Interval = 600*time.Millisecond, 200*time.Millisecond
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInterimHook: interim results go to a Reporter that shows them, else
// as plain lines between a Reporter's status lines, else nowhere live
// (stderr is not a terminal here) but always into result.interim; a front
// end's own display (netperf's demo lines) replaces the session's, and
// OnInterim gets every sample whatever shows them.
func TestInterimHook(t *testing.T) {
	run := func(s *Session, o RunOptions) *result.Result {
		t.Helper()
		res, err := s.Run(context.Background(), stream(t), o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	s := newSession(t)
	rep := &interimReporter{}
	s.Progress = rep
	res := run(s, RunOptions{})
	if n := len(res.Interim); len(rep.interim) != n || n < 1 || rep.interim[0].Units != "10^6bits/s" || rep.interim[0].Test != "TCP_STREAM" {
		t.Errorf("the reporter saw %d samples (%+v), the result has %d", len(rep.interim), rep.interim, n)
	}

	s = newSession(t)
	var stderr bytes.Buffer
	plain := &fakeReporter{}
	s.Progress, s.Stderr = plain, &stderr
	res = run(s, RunOptions{})
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != len(res.Interim) || !strings.HasPrefix(lines[0], "Interim result: ") || !strings.Contains(lines[0], "10^6bits/s over 0.") || !strings.HasSuffix(lines[0], "(TCP_STREAM)") {
		t.Errorf("plain interim lines:\n%s", stderr.String())
	}
	if plain.done < len(lines) {
		t.Errorf("the status line was cleared %d times for %d interim lines", plain.done, len(lines))
	}

	s = newSession(t)
	stderr.Reset()
	s.Stderr = &stderr
	res = run(s, RunOptions{})
	if stderr.Len() != 0 {
		t.Errorf("interim lines on a stderr that is not a terminal:\n%s", stderr.String())
	}
	if n := len(res.Interim); n < 1 {
		t.Errorf("%d samples in the result", n)
	}

	s = newSession(t)
	stderr.Reset()
	rep = &interimReporter{}
	s.Progress, s.Stderr = rep, &stderr
	var mu sync.Mutex
	var own, hooked int
	s.OnInterim = func(client.Interim) { mu.Lock(); hooked++; mu.Unlock() }
	res = run(s, RunOptions{Interim: func(client.Interim) { mu.Lock(); own++; mu.Unlock() }})
	if n := len(res.Interim); n < 1 || own != n || hooked != n || len(rep.interim) != 0 || stderr.Len() != 0 {
		t.Errorf("%d samples: the front end's display saw %d, OnInterim %d, the session's display %d and stderr %q",
			n, own, hooked, len(rep.interim), stderr.String())
	}
}

// TestRunHooks: every result goes to OnResult after the front end worded
// it (Words), a test that measured nothing goes to OnFailed with the
// worded error, and the live display is cleared after each test.
func TestRunHooks(t *testing.T) {
	s := newSession(t)
	rep := &fakeReporter{}
	s.Progress = rep
	var got []*result.Result
	s.OnResult = func(r *result.Result, err error) {
		if err != nil {
			t.Errorf("OnResult: %v", err)
		}
		got = append(got, r)
	}
	var embeddedSeen bool
	words := func(res *result.Result, err error, embedded bool) error {
		embeddedSeen = embedded
		if res != nil {
			res.Notes = append(res.Notes, "worded")
		}
		if err != nil {
			return errors.New("worded: " + err.Error())
		}
		return nil
	}
	sp := spec.Default(spec.TCPRR)
	sp.Duration, sp.Transactions = 0, 5
	res, err := s.Run(context.Background(), sp, RunOptions{Words: words})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != res || !embeddedSeen || res.Transactions != 5 || res.Notes[len(res.Notes)-1] != "worded" {
		t.Errorf("OnResult got %d results (the one returned: %v), embedded %v, notes %q", len(got), len(got) == 1 && got[0] == res, embeddedSeen, res.Notes)
	}
	if rep.done != 1 {
		t.Errorf("the display was cleared %d times after one test", rep.done)
	}

	// Nothing listens on a port the test holds: the test fails at once,
	// having measured nothing.
	var failed []string
	s.OnFailed = func(test, brand string, err error) { failed = append(failed, test+" "+brand+" "+err.Error()) }
	sp.Host, sp.Port, sp.Brand = "127.0.0.1", socktest.Reserve(t, false), "b"
	_, err = s.Run(context.Background(), sp, RunOptions{Words: words})
	if err == nil || !strings.HasPrefix(err.Error(), "worded: ") || embeddedSeen {
		t.Errorf("error %v (embedded %v)", err, embeddedSeen)
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "TCP_RR b worded: ") || len(got) != 1 {
		t.Errorf("OnFailed got %q, OnResult %d results", failed, len(got))
	}
}

// TestState: what a front end keeps is made once per session and key.
func TestState(t *testing.T) {
	type keyA struct{}
	type keyB struct{}
	s, made := newSession(t), 0
	mk := func() any { made++; return &made }
	if a, b := s.State(keyA{}, mk), s.State(keyA{}, mk); a != b || made != 1 {
		t.Errorf("the same key gave %p and %p, made %d times", a, b, made)
	}
	s.State(keyB{}, mk)
	if made != 2 {
		t.Errorf("another key made %d values in all, want 2", made)
	}
	if newSession(t).State(keyA{}, func() any { return "fresh" }) != "fresh" {
		t.Error("another session shares the first one's state")
	}
}
