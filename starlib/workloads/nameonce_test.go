package workloads

import (
	"errors"
	"testing"

	"netscript/engine/client"
)

// TestNameOnce: the builtin's name is said once, and the error still
// unwraps to the engine's (the REPL finds a partial result through it).
func TestNameOnce(t *testing.T) {
	te := &client.TestError{Err: errors.New("tcp_crr: connect 127.0.0.1:1: connection refused")}
	cases := []struct {
		err  error
		want string
	}{
		{wrapName("tcp_crr", te), "tcp_crr: connect 127.0.0.1:1: connection refused"},
		{wrapName("tcp_rr", errors.New("tcp_rr: nodelay: want True")), "tcp_rr: nodelay: want True"},
		{wrapName("tcp_rr", errors.New("nodelay: want True")), "tcp_rr: nodelay: want True"},
		{wrapName("tcp_rr", errors.New("client: tcp_rr: stalled")), "tcp_rr: client: tcp_rr: stalled"},
	}
	for _, c := range cases {
		if c.err.Error() != c.want {
			t.Errorf("got %q, want %q", c.err, c.want)
		}
	}
	var got *client.TestError
	if !errors.As(cases[0].err, &got) || got != te {
		t.Errorf("%v does not unwrap to the engine's TestError", cases[0].err)
	}
}

func wrapName(name string, err error) error {
	return nameOnce(name, errorsJoinName(name, err))
}

func errorsJoinName(name string, err error) error {
	return &advised{err: err, text: name + ": " + err.Error()}
}
