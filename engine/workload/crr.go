package workload

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// maxConsecutiveFailures ends a TCP_CRR loop whose connects keep failing
// without a single success in between, so a vanished server cannot turn the
// test into a busy loop of errors.
const maxConsecutiveFailures = 10000

// CRR is the client loop of TCP_CRR: every transaction opens a new
// connection, sends the request, reads the response, waits for the server to
// close (the server closes first, as netserver does, so TIME_WAIT stays on
// the server) and closes. The time recorded covers all of it.
type CRR struct {
	Loop
	Remote   *sock.Addr // the server's data listener (IP, or a UNIX domain name)
	Local    *sock.Addr // source address and port to bind, or nil
	Proto    int        // the sockets' protocol: 0, or unix.IPPROTO_MPTCP
	NoDelay  bool
	Request  int
	Response int
	// FastOpen opens each connection with sendto(MSG_FASTOPEN), carrying
	// the request in the SYN once the kernel has a cookie for the server,
	// and reads TCP_INFO after each transaction to count what happened.
	FastOpen bool
	// SendBuffer and RecvBuffer, if positive, are set on every connection.
	SendBuffer, RecvBuffer int
	// Walk, if set, gives every connection the next port of a walk, bound
	// with SO_REUSEADDR on Local's address (netperf's TCP_CRR port choice);
	// Local must then be set (its port is overwritten).
	Walk *PortWalk

	req    []byte
	rbuf   []byte
	giveUp func() bool
	info   sock.TCPInfo
	// connTick: no Ticker runs on the loop's thread, so every connection
	// carries socket timeouts (sock.SetTickRaw) instead.
	connTick bool

	// TCPInfo reads TCP_INFO of every connection just before it closes,
	// into Result.TCP (tcpinfo.go): one more call per transaction.
	TCPInfo bool
	tcp     tcpNote
	// Knobs are the socket options set on every connection (knobs.go).
	Knobs *sock.Knobs
}

// Prepare allocates the loop's buffers.
func (c *CRR) Prepare() {
	c.req = make([]byte, c.Request)
	c.rbuf = make([]byte, clampBuf(c.Response, 1))
	c.giveUp = func() bool { return c.stopped() || time.Since(c.Start) >= c.dead }
}

// Run runs the measured interval.
func (c *CRR) Run() {
	c.init()
	if c.req == nil {
		c.Prepare()
	}
	// A Ticker interrupts the thread's blocking calls once a tick, so the
	// connections need no timeouts of their own: two setsockopt calls per
	// transaction fewer, and no kernel timer on each wait.
	tk, err := sock.StartTicker(sock.Tick)
	if c.connTick = err != nil; !c.connTick {
		defer tk.Stop()
	}
	family := c.Remote.Family()
	failures := 0
	byDeadline := false
	var free time.Duration // when the transaction before ended
	for !c.full() && !c.stopped() {
		if c.paced() {
			due, ok := c.paceFrom(free)
			if !ok {
				byDeadline = !c.stopped()
				break
			}
			c.last = time.Since(c.Start) // the wait is not part of the transaction
			if c.Arrive != nil {
				c.last = due // but the time since the intended start is
			}
		}
		en := c.one(family)
		now := time.Since(c.Start)
		free = now
		if en != 0 {
			if en == unix.ETIMEDOUT && c.giveUp() { // abandoned at the deadline
				byDeadline = !c.stopped()
				c.Result.Discarded++
				c.Result.Censored.Add(c.endAt(byDeadline) - c.last)
				break
			}
			c.Result.Errors.Add(en)
			failures++
			if c.Err != nil { // a knob the kernel refused (setup)
				break
			}
			if fatalConnect(en) || failures >= maxConsecutiveFailures {
				c.Err = &sock.OpError{Op: "connect", Addr: c.Remote.String(), Err: en}
				if c.Local != nil {
					c.Err.(*sock.OpError).Source = c.Local.String()
				}
				break
			}
			if now >= c.dead {
				byDeadline = true
				break
			}
			continue
		}
		failures = 0
		if !c.done(now, now-c.last) {
			byDeadline = true
			break
		}
		c.last = now
	}
	c.finish(byDeadline)
	if c.TCPInfo {
		c.Result.TCP.SpanNs = uint64(c.Result.Elapsed)
	}
}

// fatalConnect reports errnos that mean the server is gone rather than a
// passing shortage of ports.
func fatalConnect(en unix.Errno) bool {
	switch en {
	case unix.ECONNREFUSED, unix.ENETUNREACH, unix.EHOSTUNREACH, unix.EAFNOSUPPORT, unix.EINVAL, unix.EMFILE, unix.ENFILE,
		unix.EOPNOTSUPP: // MSG_FASTOPEN on a kernel whose net.ipv4.tcp_fastopen lacks the client bit
		return true
	}
	return false
}

// one runs one transaction; a non-zero errno means it failed and the socket
// is closed.
func (c *CRR) one(family int) unix.Errno {
	fd, en := sock.SocketProto(family, unix.SOCK_STREAM, c.Proto)
	if en != 0 {
		return en
	}
	if en = c.setup(fd); en != 0 {
		sock.Close(fd)
		return en
	}
	if c.FastOpen {
		en = c.openFast(fd)
	} else {
		en = c.open(fd)
	}
	if en == 0 {
		if en = c.recvResponse(fd); en != 0 {
			en = c.dataErr(en)
		}
	}
	if c.FastOpen {
		// Every attempt is accounted for, even one whose transaction then
		// failed, so the kinds add up to the attempts and to what the
		// kernel counted.
		c.noteFastOpen(fd)
	}
	if c.TCPInfo {
		c.tcp.note(fd, &c.Result.TCP, true)
	}
	sock.Close(fd)
	return en
}

// open connects and sends the request.
func (c *CRR) open(fd int) unix.Errno {
	if en := sock.ConnectWait(fd, c.Remote, c.giveUp); en != 0 {
		return en
	}
	c.Result.Connects++
	return c.dataErr(c.sendAll(fd, c.req))
}

// openFast connects and sends the request in one sendto(MSG_FASTOPEN), as
// netperf -F does: with a cookie cached the request rides in the SYN;
// without one the SYN asks for a cookie and the request follows the
// handshake. The call does not wait for the handshake (MSG_DONTWAIT): a
// blocking one that a signal interrupts may already have put the request
// in the SYN yet report only the interruption, and sending it again would
// leave the server a second request it never reads.
func (c *CRR) openFast(fd int) unix.Errno {
	c.Result.FastOpen.Attempted++
	n, en := sock.SendTo(fd, c.req, unix.MSG_FASTOPEN|unix.MSG_DONTWAIT, c.Remote)
	switch en {
	case 0:
	case unix.EINPROGRESS, unix.EAGAIN, unix.EALREADY:
		// Nothing rode in the SYN (no cookie yet, or no room): the
		// request follows as a plain send, which waits for the handshake
		// itself, so such a connection makes the same two calls as one
		// without Fast Open (connect, send).
		n = 0
	default:
		return en
	}
	c.Result.Connects++
	c.Result.BytesSent += uint64(n)
	if n < len(c.req) {
		return c.dataErr(c.sendAll(fd, c.req[n:]))
	}
	return 0
}

// noteFastOpen counts what TCP_INFO says about the connection's Fast Open.
func (c *CRR) noteFastOpen(fd int) {
	st, en := c.info.FastOpen(fd)
	f := &c.Result.FastOpen
	switch {
	case en != 0:
		f.Unknown++
	case st.SynData:
		f.Accepted++
	case st.ClientFail == sock.FastOpenCookieUnavailable:
		f.CookieRequests++
	case st.ClientFail == sock.FastOpenDataNotAcked:
		f.NotAcked++
	case st.ClientFail == sock.FastOpenSynRetransmitted:
		f.SynRetransmitted++
	default:
		f.Unknown++
	}
}

func (c *CRR) setup(fd int) unix.Errno {
	if c.connTick {
		if en := sock.SetTickRaw(fd, sock.Tick); en != 0 {
			return en
		}
	}
	if c.NoDelay {
		if en := sock.SetInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); en != 0 {
			return en
		}
	}
	if c.SendBuffer > 0 {
		if en := sock.SetInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, c.SendBuffer); en != 0 {
			return en
		}
	}
	if c.RecvBuffer > 0 {
		if en := sock.SetInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, c.RecvBuffer); en != 0 {
			return en
		}
	}
	if c.Knobs != nil {
		if err := c.Knobs.Apply(fd, c.Remote.Family(), true, true, "client"); err != nil {
			// The client checked them before the interval
			// (client.probeKnobs), so a refusal now is one every
			// connection would get: Run ends on it, with the knob's own
			// error, not ten thousand retries under "connect".
			c.Err = err
			return sock.KnobErrno(err)
		}
	}
	if c.Local != nil {
		if en := sock.SetInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); en != 0 {
			return en
		}
		if c.Walk != nil {
			c.Local.SetPort(uint16(c.Walk.Next()))
		}
		if en := sock.Bind(fd, c.Local); en != 0 {
			return en
		}
	}
	return 0
}

// dataErr maps an abandoned transfer (EAGAIN from sendAll or recvResponse at
// the deadline) to ETIMEDOUT so Run counts it as discarded.
func (c *CRR) dataErr(en unix.Errno) unix.Errno {
	if en == unix.EAGAIN {
		return unix.ETIMEDOUT
	}
	return en
}

// recvResponse reads the whole response and then the server's close.
func (c *CRR) recvResponse(fd int) unix.Errno {
	got := 0
	for {
		n, en := sock.Read(fd, c.rbuf)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if c.giveUp() {
					return unix.EAGAIN
				}
				continue
			}
			return en
		}
		if n == 0 {
			if got < c.Response {
				return unix.ECONNRESET
			}
			return 0
		}
		got += n
		c.Result.BytesReceived += uint64(n)
	}
}

// CRRCheckEvery is how many connections CRRServer accepts between calls of
// its Check.
const CRRCheckEvery = 64

// CRRServer is the server loop of TCP_CRR: accept, read the request, send
// the response, close, one connection at a time, as netserver does.
type CRRServer struct {
	LFD      int // the listening socket
	Request  int
	Response int
	FastOpen bool   // read TCP_INFO of each accepted connection to count SYN data
	Allowed  *Allow // if set, connections from other sources are closed unserved (authenticated sessions)
	Stop     *atomic.Bool
	// Check, if set, is called after every CRRCheckEvery accepts; an error
	// from it ends the loop with that error (the daemon's bound on
	// connections per second). Once per batch, so it costs nothing per
	// connection.
	Check func() error
	// Transactions, if set, ends the loop once it has served this many
	// (netperf's test by a count of transactions, -l -N).
	Transactions uint64
	ServerOutcome

	rbuf []byte
	resp []byte
	peer sock.Addr
	info sock.TCPInfo

	// TCPInfo reads TCP_INFO of every connection before it closes, into
	// Counts.TCP.
	TCPInfo bool
	tcp     tcpNote
	started time.Time
	// connTick: a UNIX domain listener's connections without a Ticker
	// on the thread get socket timeouts of their own.
	connTick bool
	// mptcp: the listener is IPPROTO_MPTCP, whose accept ignores
	// SO_RCVTIMEO; each accept is asked of poll(2) first (sock.AcceptTick).
	mptcp bool
}

// Prepare allocates the loop's buffers.
func (s *CRRServer) Prepare() {
	s.rbuf = make([]byte, clampBuf(s.Request, 1))
	s.resp = make([]byte, s.Response) // TCP_CC: none
}

// Run serves connections until Stop is set.
func (s *CRRServer) Run() {
	if s.rbuf == nil {
		s.Prepare()
	}
	if s.TCPInfo {
		s.started = time.Now()
		defer func() { s.Counts.TCP.SpanNs = uint64(time.Since(s.started)) }()
	}
	// A connection accepted on a UNIX domain listener does not inherit
	// its timeouts, as a TCP one does: a Ticker interrupts the thread's
	// calls instead (or each connection gets them, where it cannot run).
	if sa, err := unix.Getsockname(s.LFD); err == nil {
		if _, ok := sa.(*unix.SockaddrUnix); ok {
			tk, err := sock.StartTicker(sock.Tick)
			if s.connTick = err != nil; !s.connTick {
				defer tk.Stop()
			}
		}
	}
	if s.mptcp = sock.IsMPTCP(s.LFD); s.mptcp {
		if err := sock.SetNonblock(s.LFD, true); err != nil {
			s.Err = fmt.Errorf("MPTCP listener: %w", err)
			return
		}
	}
	for !s.Stop.Load() {
		fd, en := s.accept()
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR || en == unix.ECONNABORTED {
				continue
			}
			s.Counts.Errors.Add(en)
			if en == unix.EINVAL || en == unix.EBADF { // listener shut down
				return
			}
			if en == unix.EMFILE || en == unix.ENFILE {
				s.Err = fmt.Errorf("accept: %w", en)
				return
			}
			continue
		}
		if s.connTick {
			sock.SetTickRaw(fd, sock.Tick)
		}
		s.peer.Received()
		if !s.Allowed.Conn(fd, &s.peer) {
			s.Counts.Strangers++ // not the authenticated client: not served
			sock.Close(fd)
			continue
		}
		s.Counts.Accepts++
		if s.Check != nil && s.Counts.Accepts%CRRCheckEvery == 0 {
			if s.Err = s.Check(); s.Err != nil {
				sock.Close(fd)
				return
			}
		}
		if s.FastOpen {
			if st, en := s.info.FastOpen(fd); en == 0 && st.SynData {
				s.Counts.FastOpen++
			}
		}
		s.peer.Received()
		s.Counts.Peers.Add(s.peer.AddrPort().Addr())
		s.serve(fd)
		if s.TCPInfo {
			s.tcp.note(fd, &s.Counts.TCP, false)
		}
		sock.Close(fd)
		if s.Transactions > 0 && s.Counts.Transactions >= s.Transactions {
			return
		}
	}
}

// accept takes the next connection, waiting at most a tick for it.
func (s *CRRServer) accept() (int, unix.Errno) {
	if s.mptcp {
		return sock.AcceptTick(s.LFD, &s.peer)
	}
	return sock.Accept(s.LFD, &s.peer)
}

func (s *CRRServer) serve(fd int) {
	got := 0
	for got < s.Request {
		n, en := sock.Read(fd, s.rbuf)
		if en != 0 {
			if (en == unix.EAGAIN || en == unix.EINTR) && !s.Stop.Load() {
				continue
			}
			s.Counts.Errors.Add(en)
			return
		}
		if n == 0 {
			return
		}
		got += n
		s.Counts.BytesReceived += uint64(n)
	}
	b := s.resp
	for len(b) > 0 {
		n, en := sock.Write(fd, b)
		if en != 0 {
			if (en == unix.EAGAIN || en == unix.EINTR) && !s.Stop.Load() {
				continue
			}
			s.Counts.Errors.Add(en)
			return
		}
		s.Counts.BytesSent += uint64(n)
		b = b[n:]
	}
	s.Counts.Transactions++
}

// Strings returns the distinct client addresses as strings.
func (p *Peers) Strings() []string {
	out := make([]string, len(p.Addrs))
	for i, a := range p.Addrs {
		out[i] = a.String()
	}
	return out
}
