package workload

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/sock"
)

// Limits say when a client loop ends: after Duration (exactly, measured on
// the monotonic clock from the loop's start), after Transactions completed,
// or at whichever comes first when both are set.
type Limits struct {
	Duration     time.Duration
	Transactions uint64
}

// Loop is what every client loop shares: its limits, its stop flag, the
// histogram it records into and its start instant.
type Loop struct {
	Limits Limits
	Stop   *atomic.Bool    // set by the orchestrator to end the loop early
	Hist   *hist.Histogram // per-transaction times; may be nil
	Start  time.Time       // the start of the measured interval
	Result Counts          // filled in by the loop
	Err    error           // why the loop ended early, if it did
	Live   *Live           // if set, the loop publishes its counts here now and then
	Pace   *Pacer          // if set, paces transactions (or sends); see NewPacer
	// Arrive, if set, is the open model's schedule: each request waits
	// for its intended start, and its latency is charged from it.
	Arrive *Schedule
	// Interim, if set, takes interim samples of the loop's counts.
	Interim *Interim
	began   bool          // a stream loop has moved its first bytes (Result.First is set)
	last    time.Duration // completion time of the previous transaction
	dead    time.Duration // the deadline as an offset from Start, or max
	pubAt   time.Duration // when the loop next publishes to Live
}

func (l *Loop) init() {
	l.dead = time.Duration(1<<63 - 1)
	if l.Limits.Duration > 0 {
		l.dead = l.Limits.Duration
	}
	if l.Start.IsZero() {
		l.Start = time.Now()
	}
	if l.Pace != nil {
		l.Pace.due = 0
	}
	if l.Arrive != nil {
		l.Arrive.Reset()
	}
	if l.Interim != nil {
		l.Interim.reset()
	}
	l.began = false
	// The instant this loop began its first transaction (or send): flows
	// released at one common start begin within the start skew.
	l.Result.Began = time.Since(l.Start)
}

// full reports whether the count limit has been reached.
func (l *Loop) full() bool {
	return l.Limits.Transactions > 0 && l.Result.Transactions >= l.Limits.Transactions
}

// stopped reports whether the orchestrator asked the loop to stop.
func (l *Loop) stopped() bool { return l.Stop != nil && l.Stop.Load() }

// done records one transaction that completed at now (an offset from Start)
// and took lat. It returns false if the transaction completed after the
// deadline, in which case it is counted as discarded instead.
func (l *Loop) done(now, lat time.Duration) bool {
	if now >= l.dead {
		l.Result.Discarded++
		l.Result.Censored.Add(l.dead - (now - lat))
		return false
	}
	if l.Result.Transactions == 0 {
		l.Result.First = now
	}
	l.Result.Transactions++
	if l.Hist != nil {
		l.Hist.Record(int64(lat))
	}
	if l.Interim != nil {
		l.Interim.take(now, l.Result.Transactions)
	}
	if l.Live != nil && now >= l.pubAt {
		l.publish(now)
	}
	return true
}

// paceFrom waits until the next transaction is due, if the loop is paced
// by a rate or an arrival schedule; free is when the loop was done with
// the transaction before (0 for the first), which tells a late start of
// the schedule. It returns the instant the transaction's time is charged
// from, as an offset from Start: the instant it returned for a rate, the
// intended start for a schedule; and false if the deadline passed or the
// loop was stopped while it waited.
func (l *Loop) paceFrom(free time.Duration) (time.Duration, bool) {
	if l.Arrive != nil {
		return l.Arrive.Wait(l.Start, free, l.dead, l.Stop)
	}
	return l.pace()
}

// paced reports whether the loop waits before each transaction: a rate or
// an arrival schedule.
func (l *Loop) paced() bool { return l.Pace != nil || l.Arrive != nil }

// pace waits until the next transaction or send is due, if the loop is
// paced by a rate. It returns the offset from Start after waiting, and
// false if the deadline passed or the loop was stopped while it waited.
func (l *Loop) pace() (time.Duration, bool) {
	if l.Pace == nil {
		return 0, true
	}
	return l.Pace.Wait(l.Start, l.dead, l.Stop)
}

// progress notes the byte count of a stream loop at now: an interim sample
// at each interval boundary and the Live counters.
func (l *Loop) progress(now time.Duration, count uint64) {
	if !l.began {
		l.began, l.Result.First = true, now
	}
	if l.Interim != nil {
		l.Interim.take(now, count)
	}
	if l.Live != nil && now >= l.pubAt {
		l.publish(now)
	}
}

// finish sets the measured interval: the full duration if the deadline
// ended the loop, else the time of the last completion.
func (l *Loop) finish(byDeadline bool) {
	if byDeadline {
		l.Result.Elapsed = l.dead
	} else {
		l.Result.Elapsed = l.last
	}
	if l.Interim != nil {
		l.Interim.final(l.Result.Elapsed, l.Result.Transactions)
	}
	if a := l.Arrive; a != nil {
		end := l.dead // nothing placed at or after the deadline is counted
		if !byDeadline {
			end = min(end, time.Since(l.Start))
		}
		a.Close(end, l.Limits.Transactions)
		l.Result.Schedule = a.Counts
	}
	if l.Live != nil {
		l.pubAt = 0
		l.publish(l.Result.Elapsed)
	}
}

// end finishes a loop that stopped with inflight requests outstanding:
// unless the loop failed, they were sent and will be answered, so they are
// discarded (not counted), and both ends' counts still add up.
func (l *Loop) end(byDeadline bool, inflight int, sent []time.Duration, head int) {
	if l.Err == nil {
		l.Result.Discarded += uint64(inflight)
	}
	l.finish(byDeadline)
	l.censorRing(byDeadline, sent, head, inflight)
}

// errPeerClosed is the error of a loop whose peer closed the data
// connection before the test ended.
type peerError struct{ op string }

func (e peerError) Error() string {
	return e.op + ": the server closed the data connection before the test ended"
}

// PeerClosed reports whether err is a loop's "the server closed the data
// connection before the test ended": against a netserver, whose own timer
// ends a TCP_MAERTS test, that close is the end of the test.
func PeerClosed(err error) bool {
	_, ok := err.(peerError)
	return ok
}

// sendAll writes all of b, riding out send timeouts (EAGAIN) and signals
// until the loop is stopped or the deadline passes. It returns the errno of
// a real failure, or EAGAIN when it gave up because the test is over.
func (l *Loop) sendAll(fd int, b []byte) unix.Errno {
	for len(b) > 0 {
		n, en := sock.Write(fd, b)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if l.stopped() || time.Since(l.Start) >= l.dead {
					return unix.EAGAIN
				}
				continue
			}
			return en
		}
		l.Result.BytesSent += uint64(n)
		b = b[n:]
	}
	return 0
}

// Live is a running loop's counts, published every PublishEvery so another
// goroutine can show progress or take interim samples without touching the
// loop's own counters.
type Live struct {
	Transactions atomic.Uint64
	Bytes        atomic.Uint64 // bytes sent plus received
	At           atomic.Int64  // when the counts were taken, ns from the loop's start
}

// PublishEvery is how often a loop publishes to its Live counters.
const PublishEvery = 50 * time.Millisecond

// publish stores the loop's counts in Live if it is time to.
func (l *Loop) publish(now time.Duration) {
	if l.Live == nil || now < l.pubAt {
		return
	}
	l.pubAt = now + PublishEvery
	l.Live.Store(now, &l.Result)
}

// Store publishes c, counted at now (an offset from the loop's start), for
// readers of l. Loops call it every PublishEvery and once at the end.
func (l *Live) Store(now time.Duration, c *Counts) {
	l.Transactions.Store(c.Transactions)
	l.Bytes.Store(c.BytesSent + c.BytesReceived)
	l.At.Store(int64(now))
}
