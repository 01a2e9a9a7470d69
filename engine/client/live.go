package client

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"netscript/engine/proto"
)

// SilentServerError is a test ended because the server, which had agreed
// to send heartbeats, sent nothing on the control connection for the
// liveness bound: it was stopped, it died without closing, or the network
// between the two ends went down.
type SilentServerError struct {
	For   time.Duration // how long the server had been silent
	Since time.Duration // when it was last heard, from the start of the test
	// Results is set when the silence came while the client waited for
	// the server's Results after Stop.
	Results bool
	// Data, if set, is the data connections' own stall, which began
	// before the silence was noticed: the first sign, told first.
	Data *StallError
}

func (e *SilentServerError) Error() string {
	msg := fmt.Sprintf("the server sent nothing on the control connection for %.1f s (since %.1f s into the test): stopped or unreachable?",
		e.For.Seconds(), e.Since.Seconds())
	if e.Data != nil {
		msg = e.Data.Error() + ", and " + msg
	}
	if e.Results {
		msg = "no Results: " + msg
	}
	return msg
}

// errHeartbeatsRefused is do's answer when the server refused the Setup
// because it does not know heartbeats (a release before them): Run asks
// again without them.
var errHeartbeatsRefused = errors.New("the server does not know heartbeats")

// liveness is a test's liveness checks while it runs: the bound, whether
// the server sends heartbeats, and when it was last heard.
type liveness struct {
	on     bool          // the checks apply (the liveness option is not 0)
	bound  time.Duration // the liveness option
	beats  bool          // the server agreed to send heartbeats
	period time.Duration // of both sides' heartbeats
	start  time.Time     // the start of the measured interval, for "since"
	heard  atomic.Int64  // when the server was last heard, ns from start
}

// heartbeatPeriod is the period a client with liveness bound asks the
// server for, and keeps to itself: three heartbeats within the bound.
func heartbeatPeriod(bound time.Duration) time.Duration {
	return min(max(bound/3, proto.MinHeartbeat), proto.MaxHeartbeat)
}

// checkEvery is how often the client looks at the flows' progress and the
// server's heartbeats during the test.
func (lv *liveness) checkEvery() time.Duration { return min(100*time.Millisecond, lv.bound/10) }

// hear notes that the server was heard now.
func (lv *liveness) hear() { lv.heard.Store(int64(time.Since(lv.start))) }

// silence is how long the server has been silent, and since when.
func (lv *liveness) silence() (silent, since time.Duration) {
	since = time.Duration(lv.heard.Load())
	return time.Since(lv.start) - since, since
}

// silent is the error of a server silent for the bound, or nil.
func (lv *liveness) silent() *SilentServerError {
	if !lv.beats {
		return nil
	}
	if d, since := lv.silence(); d >= lv.bound {
		return &SilentServerError{For: d, Since: since}
	}
	return nil
}

// receive reads the control connection during the test and after Stop:
// heartbeats are noted, and the first other message (or failure) is
// handed to msgs, which ends the reading.
func (r *run) receive(msgs chan<- message, lv *liveness) {
	for {
		t, p, err := r.pc.Recv(0)
		if err == nil && t == proto.TypeHeartbeat && lv.beats {
			if err = proto.Decode(t, p, &proto.Heartbeat{}); err == nil {
				lv.hear()
				continue
			}
		}
		msgs <- message{t, p, err}
		return
	}
}

// heartbeats sends the server a heartbeat every period until the returned
// function is called (before Stop is sent: the two never overlap).
func (r *run) heartbeats(lv *liveness) (stop func()) {
	if !lv.beats {
		return func() {}
	}
	return proto.SendHeartbeats(r.pc, lv.period)
}

// awaitResults waits for the server's answer to Stop: at most
// ControlTimeout, or after a stall (short) at most the liveness bound and
// not at all once the server has been silent for the bound.
func (r *run) awaitResults(msgs <-chan message, lv *liveness, short bool) (message, error) {
	limit := ControlTimeout
	if short && lv.on {
		limit = min(limit, lv.bound)
	}
	deadline := time.Now().Add(limit)
	every := time.Second
	if lv.on {
		every = lv.checkEvery()
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case m := <-msgs:
			return m, nil
		case <-tick.C:
		}
		// After a stall a server that is silent too is not waited for;
		// after a test that ended well the server has ControlTimeout to
		// count, as before heartbeats (it sends none once it has Stop).
		if e := lv.silent(); e != nil && short {
			e.Results = true
			return message{}, e
		}
		if !time.Now().Before(deadline) {
			return message{}, fmt.Errorf("no Results from the server within %v", limit)
		}
	}
}
