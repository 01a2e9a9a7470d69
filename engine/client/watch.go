package client

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/result"
	"netscript/engine/workload"
)

// liveness is the test's liveness state before it starts: the bound of
// its liveness option and the heartbeat period it asks for. A test with
// the option off asks for no heartbeats.
func (r *run) liveness() *liveness {
	bound, on := r.spec.LivenessBound()
	if !on {
		r.beats = false
	}
	return &liveness{on: on, bound: bound, period: heartbeatPeriod(bound), start: time.Now()}
}

// watchTest waits for the loops to end (nil), for a control message during
// the test (the session broke: its error), or, checking every few tens of
// milliseconds, for no flow to make progress for the stall bound (a
// *StallError) or for the server to fall silent for the liveness bound (a
// *SilentServerError).
func (r *run) watchTest(w *worker, msgs <-chan message, lv *liveness, lives []*workload.Live) error {
	var tick <-chan time.Time
	var sw *stallWatch
	if lv.on {
		t := time.NewTicker(lv.checkEvery())
		defer t.Stop()
		tick = t.C
		sw = newStallWatch(&r.spec, lives, stallBound(&r.spec, lv.bound), lv.start)
	}
	for {
		select {
		case <-w.done:
			return nil
		case m := <-msgs:
			// Anything from the server before Stop but a heartbeat
			// means the session broke.
			return sessionBroke(m)
		case <-tick:
		}
		if st := sw.check(); st != nil {
			return st // the data path's own stall names the cause best
		}
		if e := lv.silent(); e != nil {
			// This process may have been the one stopped: what came
			// meanwhile (heartbeats, the server's Error) is read first.
			select {
			case m := <-msgs:
				return sessionBroke(m)
			case <-time.After(lv.checkEvery()):
			}
			if e = lv.silent(); e == nil {
				continue
			}
			if idle, since := sw.idle(); idle >= lv.period {
				e.Data = &StallError{Workload: sw.workload, Flows: len(sw.lives), Stalled: len(sw.lives), For: idle, Since: since}
			}
			return e
		}
	}
}

// finish ends the data connections after the loops; after a stall or a
// silent server nobody will answer, so it does not wait.
func (r *run) finish(w *worker, cause error) {
	switch cause.(type) {
	case *StallError, *SilentServerError:
		w.finish(time.Millisecond)
	default:
		w.finish(drainTimeout)
	}
}

// fail completes a result cut short by err and returns it with its
// TestError. After a stall the stall is the cause, whatever failed after
// it (the wait for Results that a stopped server never sends).
func (r *run) fail(res *result.Result, w *worker, stalled *StallError, err error) (*result.Result, error) {
	r.figures(res, w)
	if stalled != nil {
		stalled.NoWork = noWorkAccount(&r.spec, res)
		err = stalled
	}
	return res, &TestError{Err: err, Partial: res}
}

// outcome is the error of a test whose counts are complete: a stall, a
// flow's failure, an interruption, or no work done at all (nil if none).
func (r *run) outcome(ctx context.Context, res *result.Result, stalled *StallError, testErr error) error {
	switch {
	case stalled != nil:
		stalled.NoWork = noWorkAccount(&r.spec, res)
		return &TestError{Err: stalled, Partial: res}
	case testErr != nil:
		err := fmt.Errorf("%s: %w", r.spec.Workload.Name, testErr)
		if account := noWorkAccount(&r.spec, res); account != "" {
			err = fmt.Errorf("%w; %s", err, account)
		}
		return &TestError{Err: err, Partial: res}
	case ctx.Err() != nil:
		return &TestError{Err: fmt.Errorf("interrupted: %w", ctx.Err()), Partial: res}
	}
	if nw := NoWork(&r.spec, res); nw != nil {
		return &TestError{Err: nw, Partial: res}
	}
	return nil
}

// abort ends the loops of a test that failed a liveness check at once:
// it stops them and shuts every data connection down, so no loop waits
// out a peer that does not answer (a stream's wait for the server's
// close, a read of a response).
func (w *worker) abort() {
	w.stop.Store(true)
	for _, f := range w.flows {
		if f.fd >= 0 {
			unix.Shutdown(f.fd, unix.SHUT_RDWR)
		}
	}
}

// later is the later of two instants (a zero one is never later).
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
