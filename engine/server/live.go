package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"netscript/engine/limits"
	"netscript/engine/proto"
)

// awaitStop waits through the measured interval for the client's Stop, at
// most wait. A client that asked for heartbeats (Setup.HeartbeatNs) is
// sent one every period meanwhile, and a client silent for the liveness
// bound (livenessBound) ends the test: it is told why, if it still
// listens, and the error says so. Without heartbeats this is the wait of
// before heartbeats: Stop, an Error, or the connection's end.
//
// The wait also ends early when something else sets the connection's read
// deadline (watchLimits, for a test the server ends itself); the caller
// asks that watch first. With heartbeats each read sets its own deadline,
// so a wake that falls between two reads (a few microseconds once a
// period) is lost; the test is then ended at the client's Stop, with the
// same refusal, instead of at once.
func (s *Server) awaitStop(pc *proto.Conn, setup *proto.Setup, wait time.Duration) error {
	if setup.HeartbeatNs == 0 {
		return pc.Expect(proto.TypeStop, &proto.Stop{}, wait)
	}
	period := time.Duration(setup.HeartbeatNs)
	bound := s.livenessBound(period)
	start := time.Now()
	end := start.Add(wait)

	stopBeats := proto.SendHeartbeats(pc, period)
	defer stopBeats()

	last := start // when the client was last heard
	for {
		timeout := min(time.Until(end), bound-time.Since(last))
		t, p, err := pc.Recv(max(timeout, time.Millisecond))
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			if silent := time.Since(last); silent >= bound {
				err := &silentClient{Silent: silent, Since: last.Sub(start), Flag: "liveness"}
				// The client may only be slow: tell it why its test ended.
				stopBeats()
				pc.Send(proto.TypeError, proto.Error{Message: s.explain(err)}, time.Second)
				return err
			}
			if !time.Now().Before(end) {
				return fmt.Errorf("no %s message within %v", proto.TypeStop, wait)
			}
			return fmt.Errorf("the wait for %s was cut short: %w", proto.TypeStop, err)
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("the peer closed the control connection while this side waited for %s", proto.TypeStop)
		default:
			return err
		}
		switch t {
		case proto.TypeHeartbeat:
			if err := proto.Decode(t, p, &proto.Heartbeat{}); err != nil {
				return err
			}
			last = time.Now()
		case proto.TypeStop:
			return proto.Decode(t, p, &proto.Stop{})
		case proto.TypeError:
			var e proto.Error
			if err := proto.Decode(t, p, &e); err != nil {
				return err
			}
			return &proto.RemoteError{Message: e.Message}
		default:
			return &proto.UnexpectedError{Want: proto.TypeStop, Got: t}
		}
	}
}

// livenessBound is how long a client that sends a heartbeat every period
// may be silent: the operator's bound (serve --liveness; unset:
// limits.DefaultLiveness), and at least three periods, so a client is
// never cut off for keeping to its own.
func (s *Server) livenessBound(period time.Duration) time.Duration {
	bound := s.lim.Liveness
	if bound <= 0 {
		bound = limits.DefaultLiveness
	}
	return max(bound, 3*period)
}

// silentClient is a test ended because its client sent nothing on the
// control connection for too long: it stopped, or the network between the
// two did.
type silentClient struct {
	Silent time.Duration // how long it had been silent
	Since  time.Duration // when it was last heard, from the start of the test
	Flag   string        // the bound's name ("liveness"), which serve's flag is named after
}

// BoundName is the name of the bound that ended the test.
func (e *silentClient) BoundName() string { return e.Flag }

func (e *silentClient) Error() string {
	return fmt.Sprintf("the client sent nothing on the control connection for %.1f s (since %.1f s into the test): "+
		"stopped or unreachable? the test is ended", e.Silent.Seconds(), e.Since.Seconds())
}
