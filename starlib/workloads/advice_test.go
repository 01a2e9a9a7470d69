package workloads

import (
	"errors"
	"strings"
	"testing"
)

// TestEmbeddedBound: a refusal of the embedded server that names a serve
// flag says how to get past it (the user cannot pass the flag to that
// server); other errors pass unchanged, and the chain is kept.
func TestEmbeddedBound(t *testing.T) {
	bound := errors.New("set-up: server: flows: the test needs 130 data-path threads, more than the budget of 128 (netscript serve --max-threads)")
	other := errors.New("dial 127.0.0.1:1: connection refused")
	for _, c := range []struct {
		in   error
		want string // "" leaves it unchanged
	}{
		{bound, "; the embedded server keeps a daemon's bounds on threads and tests at once: run `netscript serve` with that flag and give its address as host"},
		{other, ""},
		{nil, ""},
	} {
		got := embeddedBound(c.in)
		if c.want == "" {
			if got != c.in {
				t.Errorf("%v became %v", c.in, got)
			}
			continue
		}
		if !strings.HasPrefix(got.Error(), c.in.Error()) || !strings.HasSuffix(got.Error(), c.want) || !errors.Is(got, c.in) {
			t.Errorf("got %q", got)
		}
	}
}
