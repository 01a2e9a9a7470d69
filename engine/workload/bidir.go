package workload

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"netscript/engine/cpu"
	"netscript/engine/sock"
)

// A test both ways on one connection (tcp_bidir, connections=1) runs two
// loops on each end over the connection's one socket, each on a thread of
// its own: on the client a Stream that sends and a Maerts that receives,
// joined by a BidirLink; on the server a BidirServer, whose StreamSink
// receives and MaertsSource sends. Each direction keeps the end-of-test
// rule of the test it is: the client sends until the deadline and
// half-closes; the server reads every byte up to that close, stops sending
// and closes its side; the client's receiver counts what arrived before
// the deadline and drains what came after, up to that close, whose arrival
// ends the sending direction's interval (as TCP_STREAM's ends when the
// server's close says every byte was read).

// BidirLink joins the sending and the receiving loop of one connection of
// a test both ways: the receiver says when the server's close arrived.
type BidirLink struct {
	done   chan struct{}
	closed time.Duration // when the close arrived, from the loops' start
	ok     bool          // the close arrived (else the receiver ended without it)
	why    error         // why the receiver ended without it, if it knows
	sent   atomic.Bool   // the sender has half-closed: the server's close may follow
}

// NewBidirLink returns a link not yet closed.
func NewBidirLink() *BidirLink { return &BidirLink{done: make(chan struct{})} }

// close records that the receiver is done: at, with the server's close
// read if ok, else ended by why (nil: its bound passed).
func (k *BidirLink) close(at time.Duration, ok bool, why error) {
	k.closed, k.ok, k.why = at, ok, why
	close(k.done)
}

// wait waits at most bound for the receiver, and returns when the
// server's close arrived, whether it did, and if not, why the receiver
// ended without it (nil: the bound passed).
func (k *BidirLink) wait(bound time.Duration) (time.Duration, bool, error) {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-k.done:
		return k.closed, k.ok, k.why
	case <-t.C:
		return 0, false, nil
	}
}

// Bidir is the client loop of one connection of a test both ways: its
// sender and receiver, which the client runs each on a thread of its own
// (Parts). Running it on one thread is a mistake: it fails.
type Bidir struct {
	Tx *Stream
	Rx *Maerts
}

// NewBidir joins a sender and a receiver on one socket by a link.
func NewBidir(tx *Stream, rx *Maerts) *Bidir {
	k := NewBidirLink()
	tx.Link, rx.Link = k, k
	return &Bidir{Tx: tx, Rx: rx}
}

// Base is the sender's loop state.
func (b *Bidir) Base() *Loop { return &b.Tx.Loop }

// Run refuses: the two directions run on threads of their own.
func (b *Bidir) Run() {
	b.Tx.Err = fmt.Errorf("a test both ways runs its directions on threads of their own (Parts)")
}

// Parts are the sender and the receiver.
func (b *Bidir) Parts() []ClientLoop { return []ClientLoop{b.Tx, b.Rx} }

// Close frees what the sender holds.
func (b *Bidir) Close() { b.Tx.Close() }

// Parted is a client loop of one flow that runs as several loops over the
// flow's socket, each on a thread of its own (a test both ways: Bidir).
type Parted interface {
	ClientLoop
	Parts() []ClientLoop
}

// bidirWait is how the sender of a test both ways ends its interval: it
// waits for the receiver to read the server's close, which comes once the
// server has read every byte sent.
func (s *Stream) bidirWait() {
	at, ok, why := s.Link.wait(s.Drain)
	switch {
	case ok:
		s.last = at
		return
	case why != nil:
		s.Err = fmt.Errorf("the receiving direction ended before the server's close: %w", why)
	default:
		s.Err = fmt.Errorf("the server did not close the data connection within %v after the last send", s.Drain)
	}
	s.last = time.Since(s.Start)
}

// bidirEOF reports whether the end of the server's data that the receiver
// of a test both ways just read is the server's close after the sender's
// (so the end of the test, not a server gone early): under load the
// receiver may next read after its deadline only once that close came.
func (m *Maerts) bidirEOF() bool { return m.Link != nil && m.Link.sent.Load() }

// bidirDrain is what the receiver of a test both ways does after its
// measured interval: it reads, as drained, what the server sent after the
// deadline until the server closes (once it has read the sender's last
// byte), and tells the sender when that was.
func (m *Maerts) bidirDrain(bound time.Duration) {
	if m.Err != nil {
		m.Link.close(time.Since(m.Start), false, m.Err)
		return
	}
	n, en, closed := drainErr(m.FD, m.buf, bound)
	m.Result.Drained += n
	var why error
	if en != 0 {
		why = fmt.Errorf("recv: %w", en)
	}
	m.Link.close(time.Since(m.Start), closed, why)
}

// BidirServer is the server loop of one connection of a test both ways:
// a StreamSink reads on the calling thread while a MaertsSource sends on a
// thread of its own; when the sink has read the client's close (or Stop
// comes) the source stops and closes the sending side.
type BidirServer struct {
	Sink   StreamSink
	Source MaertsSource
	// CPU, if set, binds the sending thread as the caller's is bound.
	CPU *int
	ServerOutcome

	halt atomic.Bool
}

// NewBidirServer makes the loop of connection fd: the sink reads until
// the client's close or stop, the source sends sendSize bytes a call
// (bytes in all if set, paced by pace if set).
func NewBidirServer(fd, recvSize, sendSize int, bytes uint64, pace *Pacer, stop *atomic.Bool, zeroCopy bool) *BidirServer {
	b := &BidirServer{}
	b.Sink = StreamSink{FD: fd, RecvSize: recvSize, Stop: stop, keepOpen: true}
	b.Source = MaertsSource{FD: fd, SendSize: sendSize, Bytes: bytes, Pace: pace, Stop: &b.halt, ZeroCopy: zeroCopy, holdClose: true,
		looped: make(chan struct{})}
	return b
}

// Run serves the connection both ways and returns when both directions
// are done.
func (b *BidirServer) Run() {
	sent := make(chan time.Duration, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the loop
		var spent time.Duration
		defer func() { sent <- spent }()
		if b.CPU != nil {
			if err := cpu.Bind(*b.CPU); err != nil {
				b.Source.Err = fmt.Errorf("remote_cpu: %w", err)
				return
			}
		}
		t0, err0 := cpu.ThreadTime()
		b.Source.Run()
		if t1, err1 := cpu.ThreadTime(); err0 == nil && err1 == nil {
			spent = t1.Sub(t0).Total()
		}
	}()
	b.Sink.Run()
	if b.Source.Bytes > 0 && b.Sink.Err == nil && !b.Sink.Stop.Load() {
		// A count each way: the client's close says its bytes are all
		// read, not that the server's are all sent; the source sends
		// the rest before it closes.
		for done := false; !done && !b.Sink.Stop.Load(); {
			select {
			case <-b.Source.looped:
				done = true
			case <-time.After(sock.Tick):
			}
		}
	}
	b.halt.Store(true)
	b.Threads = <-sent
	c := &b.Counts
	*c = b.Sink.Counts
	c.BytesSent, c.SendCalls, c.ZeroCopy = b.Source.Counts.BytesSent, b.Source.Counts.SendCalls, b.Source.Counts.ZeroCopy
	c.Errors.Merge(&b.Source.Counts.Errors)
	b.Err = b.Sink.Err
	if b.Err == nil {
		b.Err = b.Source.Err
	}
}
