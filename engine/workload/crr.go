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
	Remote   *sock.Addr // the server's data listener
	Local    *sock.Addr // source address and port to bind, or nil
	NoDelay  bool
	Request  int
	Response int

	req    []byte
	rbuf   []byte
	giveUp func() bool
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
	family := c.Remote.Family()
	failures := 0
	byDeadline := false
	for !c.full() && !c.stopped() {
		en := c.one(family)
		now := time.Since(c.Start)
		if en != 0 {
			if en == unix.ETIMEDOUT && c.giveUp() { // abandoned at the deadline
				byDeadline = !c.stopped()
				c.Result.Discarded++
				break
			}
			c.Result.Errors.Add(en)
			failures++
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
}

// fatalConnect reports errnos that mean the server is gone rather than a
// passing shortage of ports.
func fatalConnect(en unix.Errno) bool {
	switch en {
	case unix.ECONNREFUSED, unix.ENETUNREACH, unix.EHOSTUNREACH, unix.EAFNOSUPPORT, unix.EINVAL, unix.EMFILE, unix.ENFILE:
		return true
	}
	return false
}

// one runs one transaction; a non-zero errno means it failed and the socket
// is closed.
func (c *CRR) one(family int) unix.Errno {
	fd, en := sock.Socket(family, unix.SOCK_STREAM)
	if en != 0 {
		return en
	}
	if en = c.setup(fd); en != 0 {
		sock.Close(fd)
		return en
	}
	if en = sock.ConnectWait(fd, c.Remote, c.giveUp); en != 0 {
		sock.Close(fd)
		return en
	}
	c.Result.Connects++
	if en = c.sendAll(fd, c.req); en != 0 {
		sock.Close(fd)
		return c.dataErr(en)
	}
	if en = c.recvResponse(fd); en != 0 {
		sock.Close(fd)
		return c.dataErr(en)
	}
	sock.Close(fd)
	return 0
}

func (c *CRR) setup(fd int) unix.Errno {
	if en := sock.SetTickRaw(fd, sock.Tick); en != 0 {
		return en
	}
	if c.NoDelay {
		if en := sock.SetInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); en != 0 {
			return en
		}
	}
	if c.Local != nil {
		if en := sock.SetInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); en != 0 {
			return en
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

// CRRServer is the server loop of TCP_CRR: accept, read the request, send
// the response, close, one connection at a time, as netserver does.
type CRRServer struct {
	LFD      int // the listening socket
	Request  int
	Response int
	Stop     *atomic.Bool
	Counts   ServerCounts
	Err      error

	rbuf []byte
	resp []byte
	peer sock.Addr
}

// Prepare allocates the loop's buffers.
func (s *CRRServer) Prepare() {
	s.rbuf = make([]byte, clampBuf(s.Request, 1))
	s.resp = make([]byte, clampBuf(s.Response, 1))
}

// Run serves connections until Stop is set.
func (s *CRRServer) Run() {
	if s.rbuf == nil {
		s.Prepare()
	}
	for !s.Stop.Load() {
		fd, en := sock.Accept(s.LFD, &s.peer)
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
		s.Counts.Accepts++
		s.peer.Received()
		s.Counts.Peers.Add(s.peer.AddrPort().Addr())
		s.serve(fd)
		sock.Close(fd)
	}
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
