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
	Flows    int           // how many flows the test has
	Stalled  int           // how many of them stalled (the others had finished)
	For      time.Duration // how long nothing moved
	Since    time.Duration // when the last progress was, from the start of the test
	// NoWork, if set, says that the test did no work at all and what was
	// counted instead (NoWorkError's account).
	NoWork string
}

func (e *StallError) Error() string {
	where := "the data connection"
	switch {
	case e.Flows <= 1:
	case e.Stalled < e.Flows:
		where = fmt.Sprintf("the data connections of %d of %d flows (the others had finished)", e.Stalled, e.Flows)
	default:
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
	bound += s.MaxScheduleGap()
	if s.Workload.Accepts(spec.OptTimeout) {
		bound += s.Timeout
	}
	if s.Workload.PerTransaction {
		bound += s.ConnectTimeout
	}
	return bound
}

// stallWatch follows the flows' published counts to tell when none has
// moved for the bound. A flow that has reached its count (transactions,
// bytes) is finished, not stalled; past the test's duration the loops
// are ending (a stream waits, bounded, for the server to read the rest),
// and nothing is a stall.
type stallWatch struct {
	workload string
	lives    []*workload.Live
	bound    time.Duration
	// The test's duration (0: it ends by count) and counts per flow.
	duration            time.Duration
	transactions, bytes uint64
	now                 func() time.Duration // the time from the start of the test
	seen                []uint64             // each flow's count when it last moved
	moved               []time.Duration      // when each flow was last seen moving, from start
	at                  []time.Duration      // each flow's last progress, on its loop's clock
}

func newStallWatch(s *spec.Spec, lives []*workload.Live, bound time.Duration, start time.Time) *stallWatch {
	return &stallWatch{workload: s.Workload.Name, lives: lives, bound: bound,
		now:      func() time.Duration { return time.Since(start) },
		duration: s.Duration, transactions: s.Transactions, bytes: s.Bytes,
		seen: make([]uint64, len(lives)), moved: make([]time.Duration, len(lives)), at: make([]time.Duration, len(lives))}
}

// finished reports whether a flow has done all its test asks of it.
func (s *stallWatch) finished(l *workload.Live) bool {
	return (s.transactions > 0 && l.Transactions.Load() >= s.transactions) || (s.bytes > 0 && l.Bytes.Load() >= s.bytes)
}

// check returns the stall, if no unfinished flow has moved for the bound,
// or nil.
func (s *stallWatch) check() *StallError {
	if s == nil || len(s.lives) == 0 {
		return nil
	}
	now := s.now()
	stalled, last, since := 0, time.Duration(0), time.Duration(0)
	for i, l := range s.lives {
		if c := l.Transactions.Load() + l.Bytes.Load(); c != s.seen[i] {
			s.seen[i], s.moved[i], s.at[i] = c, now, time.Duration(l.At.Load())
		}
		if s.finished(l) {
			continue
		}
		if now-s.moved[i] < s.bound {
			return nil // this one moves
		}
		stalled++
		last, since = max(last, s.moved[i]), max(since, min(s.at[i], s.moved[i]))
	}
	if stalled == 0 || (s.duration > 0 && now >= s.duration) {
		return nil
	}
	return &StallError{Workload: s.workload, Flows: len(s.lives), Stalled: stalled, For: max(now-since, s.bound), Since: since}
}

// idle is how long no flow has been seen moving, and since when (from
// the start of the test); zero for a nil watch.
func (s *stallWatch) idle() (time.Duration, time.Duration) {
	if s == nil || len(s.lives) == 0 {
		return 0, 0
	}
	last, since := time.Duration(0), time.Duration(0)
	for i, m := range s.moved {
		last, since = max(last, m), max(since, min(s.at[i], m))
	}
	return s.now() - last, since
}
