package client

import (
	"fmt"
	"time"

	"netscript/engine/spec"
	"netscript/engine/workload"
)

// StallError is a test ended because none of its flows made progress (no
// transaction completed, no byte moved) for the stall bound: the data path
// stopped, whatever the control connection says.
type StallError struct {
	Workload string        // "tcp_stream"
	Flows    int           // how many flows the test has (all of them stalled)
	For      time.Duration // how long nothing moved
	Since    time.Duration // when the last progress was, from the start of the test
	// NoWork, if set, says that the test did no work at all and what was
	// counted instead (NoWorkError's account).
	NoWork string
}

func (e *StallError) Error() string {
	where := "the data connection"
	if e.Flows > 1 {
		where = fmt.Sprintf("the data connections of all %d flows", e.Flows)
	}
	msg := fmt.Sprintf("%s: no progress on %s for %.1f s (since %.3f s into the test)", e.Workload, where, e.For.Seconds(), e.Since.Seconds())
	if e.NoWork != "" {
		msg += ": " + e.NoWork
	}
	return msg
}

// stallBound is how long a test's flows may make no progress before the
// test is ended: the liveness bound, plus what a healthy flow of the test
// may spend waiting on purpose: the gap between paced sends, a lost UDP
// transaction's timeout, a connection's SYN retransmissions (bounded by
// connect_timeout).
func stallBound(s *spec.Spec, bound time.Duration) time.Duration {
	if s.Rate > 0 {
		bound += time.Duration(float64(time.Second) / s.Rate)
	}
	if s.Workload.Accepts(spec.OptTimeout) {
		bound += s.Timeout
	}
	if s.Workload.PerTransaction {
		bound += s.ConnectTimeout
	}
	return bound
}

// stallWatch follows the flows' published counts to tell when none has
// moved for the bound.
type stallWatch struct {
	workload string
	lives    []*workload.Live
	bound    time.Duration
	start    time.Time       // when the watch began: the start of the test
	seen     []uint64        // each flow's count when it last moved
	moved    []time.Duration // when each flow was last seen moving, from start
	at       time.Duration   // the latest progress, on the loops' clock
}

func newStallWatch(name string, lives []*workload.Live, bound time.Duration, start time.Time) *stallWatch {
	return &stallWatch{workload: name, lives: lives, bound: bound, start: start,
		seen: make([]uint64, len(lives)), moved: make([]time.Duration, len(lives))}
}

// check returns the stall, if no flow has moved for the bound, or nil.
func (s *stallWatch) check() *StallError {
	if s == nil || len(s.lives) == 0 {
		return nil
	}
	now := time.Since(s.start)
	last := time.Duration(0)
	for i, l := range s.lives {
		if c := l.Transactions.Load() + l.Bytes.Load(); c != s.seen[i] {
			s.seen[i], s.moved[i] = c, now
			s.at = max(s.at, time.Duration(l.At.Load()))
		}
		last = max(last, s.moved[i])
	}
	if now-last < s.bound {
		return nil
	}
	since := min(s.at, last)
	if s.at == 0 {
		since = 0
	}
	return &StallError{Workload: s.workload, Flows: len(s.lives), For: max(now-since, s.bound), Since: since}
}

// idle is how long no flow has been seen moving, and since when (from
// the start of the test); zero for a nil watch.
func (s *stallWatch) idle() (time.Duration, time.Duration) {
	if s == nil || len(s.lives) == 0 {
		return 0, 0
	}
	last := time.Duration(0)
	for _, m := range s.moved {
		last = max(last, m)
	}
	return time.Since(s.start) - last, min(s.at, last)
}
