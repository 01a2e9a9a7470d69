package workload

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// PortWalk hands out TCP_CRR source ports the way netperf does (its
// pick_next_port_number): from a starting point in [Lo, Hi], one port
// further per connection, wrapping from Hi to Lo and skipping the server's
// data port. A connection whose bind or connect fails because the port is
// taken (EADDRINUSE, EADDRNOTAVAIL) is counted and retried on the next
// port, which is how netperf lives with ports that TIME_WAIT still holds.
type PortWalk struct {
	Lo, Hi int
	Skip   int // a port never handed out (the server's data port on the same host); 0: none
	next   int
}

// NewPortWalk returns a walk over [lo, hi] that starts at start (moved into
// the range if outside it).
func NewPortWalk(lo, hi, start, skip int) *PortWalk {
	if start < lo || start > hi {
		start = lo
	}
	return &PortWalk{Lo: lo, Hi: hi, Skip: skip, next: start}
}

// Next returns the port to bind for the next connection.
func (p *PortWalk) Next() int {
	for i := 0; i <= p.Hi-p.Lo; i++ {
		port := p.next
		p.next++
		if p.next > p.Hi {
			p.next = p.Lo
		}
		if port != p.Skip || p.Lo == p.Hi {
			return port
		}
	}
	return p.Lo
}

// WalkStart is where flow i of n starts its walk over [lo, hi]: the flows
// start evenly spread over the range, so that, like netperfs started at
// different times, they do not walk over each other's ports.
func WalkStart(lo, hi, i, n int) int {
	if n < 1 {
		n = 1
	}
	span := hi - lo + 1
	return lo + int(int64(span)*int64(i)/int64(n))
}

// spinWindow is how long before a common start WaitUntil stops sleeping
// and spins: a thread woken by a timer can take a few hundred µs to run
// again (longer in a virtual machine whose idle CPU is halted), a
// spinning one starts on time.
const spinWindow = 200 * time.Microsecond

// WaitUntil blocks the calling thread until t (on the monotonic clock): raw
// nanosleep calls of at most sock.Tick until spinWindow before t, then a
// spin on the clock. It returns early if stop says so. The flows of a test
// are released a little before their common start and each waits here, so
// they begin together rather than in the order their threads happen to
// be woken.
func WaitUntil(t time.Time, stop func() bool) {
	var s sock.Sleeper
	for {
		d := time.Until(t)
		if d <= 0 || stop != nil && stop() {
			return
		}
		if d <= spinWindow {
			for time.Now().Before(t) {
			}
			return
		}
		s.Sleep(d - spinWindow)
	}
}

// FDReserve is how many file descriptors a process keeps free beyond a
// test's data sockets (control connections, listeners, epoll instances,
// the files of the runtime).
const FDReserve = 64

// NeedFDs checks that the process can open n more file descriptors. It
// first raises the soft RLIMIT_NOFILE to the hard limit (Go does that at
// start too, but not in every embedding), and if n still do not fit it
// says so with the numbers and the remedy, before any socket is opened.
func NeedFDs(n int, what string) error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return nil // cannot tell: let the sockets fail on their own
	}
	if rl.Cur < rl.Max {
		up := rl
		up.Cur = up.Max
		if unix.Setrlimit(unix.RLIMIT_NOFILE, &up) == nil {
			rl = up
		}
	}
	open := OpenFDs()
	if open < 0 {
		return nil
	}
	if uint64(open+n+FDReserve) <= rl.Cur {
		return nil
	}
	return fmt.Errorf("%s need %d file descriptors, but this process has %d open and may have %d (ulimit -n, hard limit %d); "+
		"raise the limit (ulimit -n %d) or use fewer flows", what, n, open, rl.Cur, rl.Max, open+n+FDReserve)
}

// OpenFDs counts the process's open file descriptors, or -1 if it cannot.
func OpenFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
