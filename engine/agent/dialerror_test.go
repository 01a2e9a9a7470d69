package agent

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"netscript/engine/proto"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

// TestDialError: a client daemon that cannot be reached is the test's
// failure (a script's keep_going keeps it); a token refused or an
// endpoint that is no daemon is a mistake in the test's options.
func TestDialError(t *testing.T) {
	for _, c := range []struct {
		err     error
		mistake bool
	}{
		{&sock.OpError{Op: "dial", Addr: "198.18.0.2:12866", Err: syscall.ECONNREFUSED}, false},
		{errors.New("dial 198.18.0.2:12866: no answer within 5s (host down or filtered?)"), false},
		{fmt.Errorf("control 198.18.0.2:12866: read: %w", syscall.ECONNRESET), false},
		{fmt.Errorf("control 198.18.0.2:12866: %w", proto.ErrAuthFailed), true},
		{fmt.Errorf("control 198.18.0.2:12866: %w", proto.ErrTokenRequired), true},
		{fmt.Errorf("control 198.18.0.2:12866: %w", proto.ErrServerOpen), true},
		{fmt.Errorf("control 198.18.0.2:12866: %w", proto.ErrNotNetscript), true},
	} {
		err := dialError(c.err)
		var oe *spec.OptionError
		if errors.As(err, &oe) != c.mistake || !errors.Is(err, c.err) || err.Error() != "client: "+c.err.Error() {
			t.Errorf("%v: %v (%T); want a mistake %v, wrapping it as client: ...", c.err, err, err, c.mistake)
		}
	}
}
