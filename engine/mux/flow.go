package mux

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// Flow is one connection (TCP_RR) or one sequence of connections (TCP_CRR)
// of a multi-flow test, with its own counts and histogram.
type Flow struct {
	FD     int        // TCP_RR: the connected socket (made non-blocking by Run)
	Local  *sock.Addr // TCP_CRR: the source address to bind, or nil
	Remote *sock.Addr // TCP_CRR: this flow's server, if not Config.Remote
	// Walk, TCP_CRR: if set, each connection binds Local's address with
	// the walk's next port (SO_REUSEADDR), as netperf picks its ports;
	// Local must then be this flow's own Addr.
	Walk   *workload.PortWalk
	Hist   *hist.Histogram // this flow's transaction times; may be nil
	Result workload.Counts // what this flow counted
	Err    error           // why this flow stopped early, if it did
	// Live, if set, receives the flow's counts every workload.PublishEvery
	// while it runs and once when it ends, for a progress display.
	Live *workload.Live

	sent     []time.Duration // send times of requests in flight (ring)
	head     int
	inflight int
	issued   uint64
	got      int  // bytes of the current response received
	unsent   int  // bytes of the current request not yet sent
	waitOut  bool // epoll watches for room to write
	last     time.Duration
	done     bool // finished: limit reached, failed, or past the deadline
	late     bool // a transaction completed past the deadline
	failures int  // consecutive failed connects (TCP_CRR)
	retry    bool // TCP_CRR: the last connect failed; try again next round
	retryAt  time.Duration
	pubAt    time.Duration // when the flow next publishes to Live
}

// Config is what every flow of a test shares.
type Config struct {
	Request, Response int
	Burst             int             // requests in flight per flow beyond the first (TCP_RR)
	Limits            workload.Limits // per flow: each flow ends after Transactions
	Stop              *atomic.Bool    // set to end the test early
	Threads           int             // how many threads share the flows; at least 1
	Remote            *sock.Addr      // TCP_CRR: the server's data listener (IP, or a UNIX domain name)
	Proto             int             // TCP_CRR: the connections' protocol: 0, or unix.IPPROTO_MPTCP
	NoDelay           bool
	// SendBuffer and RecvBuffer, TCP_CRR: if positive, set on every
	// connection (TCP_RR's sockets come ready made).
	SendBuffer, RecvBuffer int
	CPU                    *int // bind every thread to this CPU; nil leaves them to the scheduler
	// Knobs, if set, are the test's socket knobs (knobs.go): TCP_CRR sets
	// them on every connection before it connects and, with TCPInfo,
	// reads each connection's TCP_INFO before it closes; TCP_RR, whose
	// sockets come with them set, re-arms TCP_QUICKACK after each receive
	// when QuickAck is.
	Knobs *sock.Knobs
}

// deadline returns the end of the measured interval as an offset.
func (c *Config) deadline() time.Duration {
	if c.Limits.Duration > 0 {
		return c.Limits.Duration
	}
	return time.Duration(1<<63 - 1)
}

func (c *Config) stopped() bool { return c.Stop != nil && c.Stop.Load() }

// record counts a transaction of f completed at now after lat; it returns
// false if it completed after the deadline (then it is discarded and the
// flow is done).
func (f *Flow) record(now, lat, dead time.Duration) bool {
	if now >= dead {
		f.Result.Discarded++
		f.Result.Censored.Add(dead - (now - lat))
		f.done, f.late = true, true
		return false
	}
	if f.Result.Transactions == 0 {
		f.Result.First = now
	}
	f.Result.Transactions++
	f.last = now
	if f.Hist != nil {
		f.Hist.Record(int64(lat))
	}
	if f.Live != nil && now >= f.pubAt {
		f.pubAt = now + workload.PublishEvery
		f.Live.Store(now, &f.Result)
	}
	return true
}

// fail ends the flow on a hard error.
func (f *Flow) fail(op string, en unix.Errno) {
	f.Result.Errors.Add(en)
	if f.Err == nil {
		f.Err = &sock.OpError{Op: op, Err: en}
	}
	f.done = true
}

// finish sets the flow's measured interval and counts what was in flight.
func (f *Flow) finish(byDeadline bool, dead time.Duration) {
	byDeadline = byDeadline || f.late
	if f.Err == nil {
		f.Result.Discarded += uint64(f.inflight)
	}
	f.inflight = 0
	if byDeadline {
		f.Result.Elapsed = dead
	} else {
		f.Result.Elapsed = f.last
	}
	if f.Live != nil {
		f.Live.Store(f.Result.Elapsed, &f.Result)
	}
}

// split gives flow i to thread i mod n.
func split(flows []*Flow, n int) [][]*Flow {
	if n < 1 {
		n = 1
	}
	if n > len(flows) {
		n = len(flows)
	}
	parts := make([][]*Flow, n)
	for i, f := range flows {
		parts[i%n] = append(parts[i%n], f)
	}
	return parts
}
