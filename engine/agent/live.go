package agent

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"netscript/engine/proto"
)

// SilentDaemonError is a test ended because the daemon that runs its
// client side answered nothing on the control connection for the liveness
// bound: it was stopped, died without closing, or the network to it went
// down. The script learns it then, not after the test's length and the
// waits that follow it.
type SilentDaemonError struct {
	For   time.Duration // how long it had been silent
	Since time.Duration // when it was last heard, from Go
}

func (e *SilentDaemonError) Error() string {
	return fmt.Sprintf("the daemon answered nothing on the control connection for %.1f s (since %.1f s after Go): stopped or unreachable?",
		e.For.Seconds(), e.Since.Seconds())
}

// awaitResult waits for the daemon's ClientResult, at most wait (0: no
// bound). With a liveness bound (on) it asks the daemon a Sync whenever
// the connection has been quiet for a third of it, which every daemon
// answers at any point of a test (releases before the liveness checks
// too), and gives up with a *SilentDaemonError once nothing came back for
// the bound. send serializes this side's writes.
func awaitResult(pc *proto.Conn, wait, bound time.Duration, on bool, send func(func() error) error) (proto.ClientResult, error) {
	var cr proto.ClientResult
	if !on {
		return cr, pc.Expect(proto.TypeClientResult, &cr, wait)
	}
	start := time.Now()
	heard := start
	period := max(bound/3, 10*time.Millisecond)
	seq := syncRounds // past the Syncs that timed the round trip
	for {
		timeout := period
		if wait > 0 {
			left := time.Until(start.Add(wait))
			if left <= 0 {
				return cr, fmt.Errorf("no %s message within %v", proto.TypeClientResult, wait)
			}
			timeout = min(timeout, left)
		}
		t, p, err := pc.Recv(timeout)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			if silent := time.Since(heard); silent >= bound {
				return cr, &SilentDaemonError{For: silent, Since: heard.Sub(start)}
			}
			seq++
			n := seq
			if err := send(func() error { return pc.Send(proto.TypeSync, proto.Sync{Seq: n}, period) }); err != nil {
				return cr, err
			}
			continue
		case err != nil:
			return cr, err
		}
		heard = time.Now()
		switch t {
		case proto.TypeSync:
			// The daemon is alive; the echo's number means nothing more.
		case proto.TypeClientResult:
			return cr, proto.Decode(t, p, &cr)
		case proto.TypeError:
			var e proto.Error
			if err := proto.Decode(t, p, &e); err != nil {
				return cr, err
			}
			return cr, &proto.RemoteError{Message: e.Message}
		default:
			return cr, &proto.UnexpectedError{Want: proto.TypeClientResult, Got: t}
		}
	}
}

// sender serializes one connection's writes from several goroutines.
func sender() func(func() error) error {
	var mu sync.Mutex
	return func(fn func() error) error {
		mu.Lock()
		defer mu.Unlock()
		return fn()
	}
}
