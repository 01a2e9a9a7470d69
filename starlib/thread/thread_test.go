package thread

import (
	"bytes"
	"context"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"netscript/session"
)

// gate is a start barrier that starts at once.
type gate struct{}

func (gate) Arrive(context.Context, time.Duration) (time.Time, error) { return time.Now(), nil }

// TestThreadsShareTheRun: a loaded module's thread and a branch's reach the
// same session and what a module keeps for it; a load keeps the context, a
// branch has its own and its gate; print goes to the session's Stdout.
func TestThreadsShareTheRun(t *testing.T) {
	s := session.New("test")
	defer s.Close()
	var out bytes.Buffer
	s.Stdout = &out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	th := New("main", s, ctx)
	th.Print(th, "hello")
	if out.String() != "hello\n" {
		t.Errorf("print wrote %q", out.String())
	}
	if Gate(th) != nil {
		t.Error("the main thread has a gate")
	}
	type key struct{}
	kept, err := State(th, key{}, func() any { return new(int) })
	if err != nil {
		t.Fatal(err)
	}

	bctx, bcancel := context.WithCancel(ctx)
	defer bcancel()
	for _, c := range []struct {
		name  string
		th    *starlark.Thread
		ctx   context.Context
		gated bool
	}{
		{"load", NewLoad(th, "load"), ctx, false},
		{"branch", NewBranch(th, "branch", bctx, gate{}), bctx, true},
	} {
		if got, err := Session(c.th); err != nil || got != s {
			t.Errorf("%s: session %p (%v), want %p", c.name, got, err, s)
		}
		if Context(c.th) != c.ctx {
			t.Errorf("%s: another context", c.name)
		}
		if (Gate(c.th) != nil) != c.gated {
			t.Errorf("%s: gate %v", c.name, Gate(c.th))
		}
		if v, _ := State(c.th, key{}, func() any { return new(int) }); v != kept {
			t.Errorf("%s: a state of its own", c.name)
		}
	}
	if _, err := Session(&starlark.Thread{}); err == nil {
		t.Error("a bare thread has a session")
	}
	if Context(&starlark.Thread{}) != context.Background() {
		t.Error("a bare thread's context is not Background")
	}
}
