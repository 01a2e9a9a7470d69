package workload

import (
	"time"

	"netscript/engine/sock"
)

// quiet tells when a socket has been quiet for a tick (sock.Tick) after
// the end of a test was signalled: the wait of a server that goes on
// counting what was sent inside the interval. A receive that returns
// EAGAIN or EINTR is no proof of quiet by itself: EINTR comes from any
// signal (the Go runtime preempts a goroutine with SIGURG, a Ticker sends
// its own), often a few milliseconds into the wait. The quiet period is
// measured on the clock instead, from the end or the last datagram,
// whichever is later, and an interrupted wait is simply made again for
// the time that remains.
type quiet struct {
	since time.Time // the end, or the last datagram after it; zero: not ending
}

// start marks the end of the test, if it is not marked yet.
func (q *quiet) start(now time.Time) {
	if q.since.IsZero() {
		q.since = now
	}
}

// ending says whether the end was marked.
func (q *quiet) ending() bool { return !q.since.IsZero() }

// heard notes a datagram received after the end.
func (q *quiet) heard(now time.Time) {
	if !q.since.IsZero() {
		q.since = now
	}
}

// over says whether the socket has been quiet for a whole tick at now.
func (q *quiet) over(now time.Time) bool {
	return !q.since.IsZero() && now.Sub(q.since) >= sock.Tick
}
