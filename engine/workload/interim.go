package workload

import (
	"sync/atomic"
	"time"
)

// Sample is one interim reading of a loop's counts.
type Sample struct {
	At    time.Duration // when it was taken, from the loop's start
	Count uint64        // the loop's work so far: transactions, or bytes for streams
	// With Interim.TCP: the connection's segments retransmitted since
	// the start and its congestion window (interim_tcp.go).
	Retrans, Cwnd uint32
	// With Interim.TCP: the bytes this end sent that the peer has
	// acknowledged since the start (tcpi_bytes_acked): what a sender
	// knows arrived, where Count is what it handed to its socket.
	Acked uint64
	// With Interim.TCP: the sum of the smoothed RTTs (tcpi_rtt, µs) of
	// the connections that had one, and how many did (one flow's sample
	// has at most one; combined samples add them up).
	RTTSum   uint64
	RTTConns uint32
	// The same of the receiver's RTT estimate (tcpi_rcv_rtt, µs), which
	// the end that only receives keeps from the timestamps its data
	// echoes: the queue its data waits in.
	RcvRTTSum   uint64
	RcvRTTConns uint32
	TCP         bool
}

// Interim collects a loop's interim samples (netperf's demo mode, -D): the
// loop takes one at the first unit of work after each multiple of Every,
// into a slice allocated once, and publishes how many it has taken with an
// atomic store so another goroutine can show them while the test runs.
type Interim struct {
	Every time.Duration

	buf  []Sample
	k    int           // samples taken (the loop's own count)
	n    atomic.Int64  // samples published
	next time.Duration // the next boundary

	// TCP, if set, reads the flow's TCP_INFO into each sample.
	TCP *InterimTCP
}

// NewInterim returns a collector for samples every every over a test of
// length total (0 when the test ends by count, which keeps room for
// maxSamplesByCount samples).
func NewInterim(every, total time.Duration) *Interim {
	size := maxSamplesByCount
	if total > 0 {
		size = int(total/every) + 2
	}
	return &Interim{Every: every, buf: make([]Sample, size), next: every}
}

// maxSamplesByCount is how many samples a count-limited test keeps.
const maxSamplesByCount = 4096

// reset forgets the samples of an earlier run of the loop.
func (iv *Interim) reset() {
	iv.k, iv.next = 0, iv.Every
	iv.n.Store(0)
}

// take records a sample at now if a boundary has passed. It allocates
// nothing; once the slice is full further samples are dropped.
func (iv *Interim) take(now time.Duration, count uint64) {
	if now < iv.next {
		return
	}
	for iv.next <= now {
		iv.next += iv.Every
	}
	iv.add(now, count)
}

// final records the last, partial interval at the end of the loop, unless
// it is too short to mean anything (under a tenth of Every) and no work was
// done in it: the samples always add up to the whole test.
func (iv *Interim) final(end time.Duration, count uint64) {
	last, before := time.Duration(0), uint64(0)
	if iv.k > 0 {
		last, before = iv.buf[iv.k-1].At, iv.buf[iv.k-1].Count
	}
	if end-last >= iv.Every/10 || (count != before && end > last) {
		iv.add(end, count)
	}
}

func (iv *Interim) add(at time.Duration, count uint64) {
	if iv.k >= len(iv.buf) {
		return
	}
	iv.buf[iv.k] = Sample{At: at, Count: count}
	if iv.TCP != nil {
		iv.TCP.read(&iv.buf[iv.k])
	}
	iv.k++
	iv.n.Store(int64(iv.k))
}

// Samples returns the samples published so far. It is safe to call from any
// goroutine while the loop runs; the returned slice must not be changed.
func (iv *Interim) Samples() []Sample {
	return iv.buf[:iv.n.Load()]
}
