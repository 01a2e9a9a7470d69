package mux

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// The two TCP streams served on a few epoll threads: each thread has one
// buffer for all its connections, and a connection costs a descriptor and
// its counts, not a thread. Per connection, the calls and counts are those
// of package workload's StreamSink and MaertsSource.

// burst bounds the send calls one TCP_MAERTS connection makes per wake-up,
// so a connection that always has room cannot keep its thread from the
// others. (Sending in bursts moved more than one send a wake-up, measured
// at 64 and 256 flows; receiving is the other way round: see sink.)
const burst = 16

// maxBuf bounds a thread's stream buffer, as package workload bounds its
// loops' buffers.
const maxBuf = 4 << 20

// maxDebt bounds how far a paced connection that fell behind may catch up
// unpaced, as workload.Pacer does: at most this much of its schedule is
// made up at once; anything older is forgiven.
const maxDebt = 100 * time.Millisecond

// ServeStream is TCP_STREAM's server on cfg.Threads threads: it reads and
// counts what every connection's client sends, cfg.RecvSize bytes asked of
// each receive, as workload.StreamSink does. At a client's end of stream it
// half-closes that connection back, so the client sees every byte was
// read. It returns when every connection has ended or cfg.Stop is set.
func ServeStream(conns []*Conn, cfg ServeConfig) ServeStats {
	return serveOn(conns, &cfg, func(part []*Conn, ready func()) { sinkThread(part, &cfg, ready) })
}

// ServeMaerts is TCP_MAERTS's server on cfg.Threads threads: it sends
// cfg.SendSize bytes at a time on every connection, as workload.MaertsSource
// does, until cfg.Stop, cfg.Bytes sent or the client goes away, then
// half-closes the connection so the client sees the end of the data. With
// cfg.Rate each connection sends that many times a second on its own
// schedule, kept as workload.Pacer keeps one.
func ServeMaerts(conns []*Conn, cfg ServeConfig) ServeStats {
	return serveOn(conns, &cfg, func(part []*Conn, ready func()) { sourceThread(part, &cfg, ready) })
}

// watch makes an epoll instance watching conns (made non-blocking) for the
// events in want, and returns it and how many connections it watches; ready is
// called either way. A connection that cannot be watched is closed; if the
// instance cannot be made, every connection is, and epfd is -1.
func watch(conns []*Conn, want uint32, ready func()) (epfd, open int) {
	defer ready()
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		for _, c := range conns {
			c.fail("epoll_create1", err.(unix.Errno))
		}
		return -1, 0
	}
	for i, c := range conns {
		if c.closed {
			continue
		}
		if err := sock.SetNonblock(c.FD, true); err != nil {
			c.Err, c.closed = err, true
			continue
		}
		if en := sock.EpollCtl(epfd, unix.EPOLL_CTL_ADD, c.FD, want, int32(i)); en != 0 {
			c.fail("epoll_ctl", en)
			continue
		}
		open++
	}
	return epfd, open
}

// fail ends c on a failed call.
func (c *Conn) fail(op string, en unix.Errno) {
	c.Counts.Errors.Add(en)
	if c.Err == nil {
		c.Err = fmt.Errorf("%s: %w", op, en)
	}
	c.closed = true
}

// forget stops watching c, which has ended (an ended stream connection
// stays readable or writable, and would wake its thread for nothing).
func forget(epfd int, c *Conn) { sock.EpollCtl(epfd, unix.EPOLL_CTL_DEL, c.FD, 0, 0) }

// waitFailed ends the connections still open after epoll_wait failed.
func waitFailed(conns []*Conn, en unix.Errno) {
	for _, c := range conns {
		if !c.closed {
			c.fail("epoll_wait", en)
		}
	}
}

// streamBuf allocates a thread's buffer of n bytes (at least 1, at most
// maxBuf), filled with a pattern as package workload fills its own.
func streamBuf(n int) []byte {
	b := make([]byte, min(max(n, 1), maxBuf))
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// events is a thread's epoll event buffer for n connections.
func events(n int) []unix.EpollEvent { return make([]unix.EpollEvent, max(1, min(n, 512))) }

// stopped reports whether the test is over.
func stopped(stop *atomic.Bool) bool { return stop != nil && stop.Load() }

// sinkThread reads conns until every client has ended its stream or
// cfg.Stop is set.
func sinkThread(conns []*Conn, cfg *ServeConfig, ready func()) {
	epfd, open := watch(conns, unix.EPOLLIN, ready)
	if epfd < 0 {
		return
	}
	defer unix.Close(epfd)
	buf := streamBuf(cfg.RecvSize)
	evs := events(len(conns))
	for open > 0 && !stopped(cfg.Stop) {
		n, en := sock.EpollWait(epfd, evs, tickMs)
		if en != 0 && en != unix.EINTR {
			waitFailed(conns, en)
			return
		}
		for _, ev := range evs[:n] {
			c := conns[int(ev.Pad)]
			if c.closed {
				continue
			}
			c.sink(buf)
			if c.closed {
				forget(epfd, c)
				open--
			}
		}
	}
}

// sink makes one receive call on c, counting as workload.StreamSink does;
// at the end of the stream it half-closes c. One call a wake-up, not as
// many as the queue holds: epoll reports c again while data is left, and
// the thread's connections are read in turn, so none sits with a full
// window while another is drained (measured at 16 to 256 flows: a burst
// of 16 receives per wake-up cost the server about 25 % more CPU time per
// KB, and the flows together moved less).
func (c *Conn) sink(buf []byte) {
	n, en := sock.Read(c.FD, buf)
	for en == unix.EINTR {
		n, en = sock.Read(c.FD, buf)
	}
	switch {
	case en == unix.EAGAIN:
	case en != 0:
		c.Counts.Errors.Add(en)
		if en != unix.ECONNRESET {
			c.Err = fmt.Errorf("recv: %w", en)
		}
		c.closed = true
	case n == 0:
		sock.Shutdown(c.FD, unix.SHUT_WR) // every byte was read: say so
		c.closed = true
	default:
		c.Counts.BytesReceived += uint64(n)
		c.Counts.RecvCalls++
	}
}

// sourceThread sends on conns until each has sent its bytes or failed, or
// cfg.Stop is set; each connection is half-closed as it ends. Unpaced,
// every connection is watched for room to send; paced, a connection is
// watched only while a due send waits for room, and epoll_wait waits until
// the next send is due.
func sourceThread(conns []*Conn, cfg *ServeConfig, ready func()) {
	paced := cfg.Rate > 0
	var want uint32 = unix.EPOLLOUT
	if paced {
		want = 0 // errors and hang-ups only, until a due send finds no room
	}
	epfd, open := watch(conns, want, ready)
	for _, c := range conns {
		if c.closed {
			sock.Shutdown(c.FD, unix.SHUT_WR) // as MaertsSource does, however it ends
		}
	}
	if epfd < 0 {
		return
	}
	defer unix.Close(epfd)
	s := source{epfd: epfd, conns: conns, cfg: cfg, buf: streamBuf(cfg.SendSize), start: time.Now(), open: open}
	if paced {
		s.period = max(time.Duration(float64(time.Second)/cfg.Rate), 1)
	}
	evs := events(len(conns))
	for s.open > 0 && !stopped(cfg.Stop) {
		wait := tickMs
		if paced {
			wait = msUntil(s.sendDue() - time.Since(s.start))
		}
		n, en := sock.EpollWait(epfd, evs, wait)
		if en != 0 && en != unix.EINTR {
			waitFailed(conns, en)
			break
		}
		for _, ev := range evs[:n] {
			if stopped(cfg.Stop) {
				break
			}
			i := int(ev.Pad)
			if c := conns[i]; !c.closed {
				s.ready(c, i)
			}
		}
	}
	for _, c := range conns {
		if !c.closed {
			sock.Shutdown(c.FD, unix.SHUT_WR) // stopped: the end of the data
		}
	}
}

// source is one TCP_MAERTS thread's state.
type source struct {
	epfd   int
	conns  []*Conn
	cfg    *ServeConfig
	buf    []byte
	start  time.Time
	period time.Duration // between a connection's sends; 0: unpaced
	open   int           // connections not yet ended
}

// ready sends on conns[i], which epoll found ready: unpaced, as many sends
// as it takes (up to burst); paced, the due send that found no room (or
// the error epoll saw).
func (s *source) ready(c *Conn, i int) {
	if s.period == 0 {
		// A short send filled the socket: the next would find no room.
		for k := 0; k < burst && !c.closed; k++ {
			if s.send(c) < len(s.buf) {
				return
			}
		}
		return
	}
	if c.waitOut {
		c.waitOut = false
		sock.EpollCtl(s.epfd, unix.EPOLL_CTL_MOD, c.FD, 0, int32(i))
	}
	s.sendPaced(c, i, time.Since(s.start))
}

// sendDue makes the sends that are due on the connections not waiting for
// room, and returns when the next one is due, from start.
func (s *source) sendDue() time.Duration {
	next := time.Duration(1<<63 - 1)
	now := time.Since(s.start)
	for i, c := range s.conns {
		for k := 0; k < burst && !c.closed && !c.waitOut && c.due <= now && !stopped(s.cfg.Stop); k++ {
			s.sendPaced(c, i, now)
		}
		if !c.closed && !c.waitOut {
			next = min(next, c.due)
		}
	}
	return next
}

// sendPaced makes c's due send at now; if the socket is full, epoll
// watches it for room.
func (s *source) sendPaced(c *Conn, i int, now time.Duration) {
	if s.send(c) > 0 {
		c.paced(now, s.period)
	} else if !c.closed {
		c.waitOut = true
		sock.EpollCtl(s.epfd, unix.EPOLL_CTL_MOD, c.FD, unix.EPOLLOUT, int32(i))
	}
}

// send makes one send on c and returns the bytes it moved; a connection
// it ends is half-closed and no longer watched.
func (s *source) send(c *Conn) int {
	n := c.send(s.buf, s.cfg.Bytes)
	if c.closed {
		sock.Shutdown(c.FD, unix.SHUT_WR) // the end of the data
		forget(s.epfd, c)
		s.open--
	}
	return n
}

// paced moves c's schedule on by one send made at now.
func (c *Conn) paced(now, period time.Duration) {
	c.due += period
	if now-c.due > maxDebt {
		c.due = now - maxDebt
	}
}

// msUntil is how many whole milliseconds epoll_wait must wait for d to
// pass (rounded up, so a wait never ends before the send is due), at most
// sock.Tick's: nothing due (d is then near forever) is a tick too.
func msUntil(d time.Duration) int {
	switch {
	case d <= 0:
		return 0
	case d >= sock.Tick:
		return tickMs
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// send makes one send of c's next bytes from buf, counting as
// workload.MaertsSource does, and returns the bytes it moved: none if the
// socket is full (c is still open) or c has ended (it has sent bytes, if
// positive, or failed).
func (c *Conn) send(buf []byte, bytes uint64) int {
	if bytes > 0 && c.Counts.BytesSent >= bytes {
		c.closed = true
		return 0
	}
	b := buf
	if left := bytes - c.Counts.BytesSent; bytes > 0 && left < uint64(len(b)) {
		b = b[:left]
	}
	for {
		n, en := sock.Write(c.FD, b)
		if en == unix.EINTR {
			continue
		}
		if en == unix.EAGAIN {
			return 0
		}
		if en != 0 {
			c.Counts.Errors.Add(en)
			if en != unix.EPIPE && en != unix.ECONNRESET {
				c.Err = fmt.Errorf("send: %w", en)
			}
			c.closed = true
			return 0
		}
		c.Counts.BytesSent += uint64(n)
		c.Counts.SendCalls++
		if bytes > 0 && c.Counts.BytesSent >= bytes {
			c.closed = true
		}
		return n
	}
}
