package mux

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
	"netscript/engine/workload"
)

// maxConsecutiveFailures ends a flow whose connects keep failing.
const maxConsecutiveFailures = 10000

// crr phases of a flow's current connection.
const (
	idle      = iota // no connection
	sending          // connected or connecting; the request is not all out
	receiving        // request sent; reading the response, then the close
)

// crrFlow is a flow's per-connection state beside its Flow.
type crrFlow struct {
	fd    int
	phase int
	t0    time.Duration // when this transaction began
}

// RunCRR drives TCP_CRR for every flow against cfg.Remote: each
// transaction is a new non-blocking connection, the request, the response
// and the server's close, timed from start to close.
func RunCRR(start time.Time, flows []*Flow, cfg *Config) {
	runNow(start, flows, cfg, PrepareCRR)
}

// PrepareCRR sets TCP_CRR up for flows on cfg.Threads threads and returns
// them waiting for Start.
func PrepareCRR(flows []*Flow, cfg *Config) (*Runner, error) {
	return prepare(flows, cfg, func(part []*Flow) (func(time.Time), error) {
		epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return nil, fmt.Errorf("epoll_create1: %w", err)
		}
		return func(start time.Time) {
			defer unix.Close(epfd)
			if !start.IsZero() {
				crrThread(start, part, cfg, epfd)
			}
		}, nil
	})
}

type crrState struct {
	cfg     *Config
	epfd    int
	req     []byte
	buf     []byte
	dead    time.Duration
	family  int
	conns   []crrFlow
	retries int // flows waiting to try connecting again
	// holdSend: open leaves the request to the caller (the start, which
	// opens every flow's first connection before it sends).
	holdSend bool
	// knobs are set on every connection before it connects (nil: none
	// given); with tcpInfo each connection's TCP_INFO is read into its
	// flow's Result.TCP just before it closes, as workload.CRR does.
	knobs   *sock.Knobs
	tcpInfo bool
	note    workload.TCPNote
}

func crrThread(start time.Time, flows []*Flow, cfg *Config, epfd int) {
	dead := cfg.deadline()
	t := &crrState{cfg: cfg, epfd: epfd, req: make([]byte, cfg.Request), buf: make([]byte, 64<<10),
		dead: dead, family: cfg.Remote.Family(), conns: make([]crrFlow, len(flows))}
	if k := cfg.Knobs; k != nil {
		if k.Given() {
			t.knobs = k
		}
		t.tcpInfo = k.TCPInfo
	}
	for i := range t.conns {
		t.conns[i].fd = -1
	}
	events := make([]unix.EpollEvent, min(len(flows), 512))
	// Every flow's first connection is opened before any request goes
	// out, so the server's work on the first requests does not hold up
	// the start of the last flows (the start skew).
	t.holdSend = true
	for i, f := range flows {
		f.Result.Began = time.Since(start)
		t.next(f, i, 0)
	}
	t.holdSend = false
	active := 0
	for i, f := range flows {
		if c := &t.conns[i]; !f.done && c.fd >= 0 && c.phase == sending {
			t.send(f, c)
		}
		if !f.done {
			active++
		}
	}
	byDeadline := false
	for active > 0 && !cfg.stopped() {
		wait := tickMs
		if t.retries > 0 {
			wait = 0
		}
		n, en := sock.EpollWait(epfd, events, wait)
		if en != 0 && en != unix.EINTR {
			for _, f := range flows {
				if !f.done {
					f.fail("epoll_wait", en)
				}
			}
			break
		}
		if time.Since(start) >= dead {
			byDeadline = true
			break
		}
		for _, ev := range events[:n] {
			i := int(ev.Pad)
			f := flows[i]
			if f.done || t.conns[i].fd != int(ev.Fd) {
				continue // an event of a connection already closed
			}
			t.event(f, i, start)
			if f.done {
				active--
			}
		}
		if t.retries > 0 {
			for i, f := range flows {
				if f.retry && !f.done {
					f.retry = false
					t.retries--
					t.next(f, i, f.retryAt)
					if f.done {
						active--
					}
				}
			}
		}
	}
	for i, f := range flows {
		if c := &t.conns[i]; c.fd >= 0 {
			t.close(f, c.fd)
			c.fd = -1
			if f.Err == nil {
				f.inflight = 1 // begun, not finished: discarded
				f.Result.Censored.Add(f.endAt(byDeadline, dead, start) - c.t0)
			}
		}
		f.finish(byDeadline, dead)
		if t.tcpInfo {
			f.Result.TCP.SpanNs = uint64(f.Result.Elapsed)
		}
	}
}

// close closes one of f's connections, reading its TCP_INFO first when
// asked (every connection whose handshake completed is read, whatever
// became of its transaction, as workload.CRR reads them).
func (t *crrState) close(f *Flow, fd int) {
	if t.tcpInfo {
		t.note.Note(fd, &f.Result.TCP)
	}
	sock.Close(fd)
}

// next begins flow i's next transaction at now (unless its limit is
// reached): a new socket, connect, and the request if the connection is
// already up. A connect that fails for want of ports or the like is
// counted and tried again on the thread's next round, so other flows go on.
func (t *crrState) next(f *Flow, i int, now time.Duration) {
	limit := t.cfg.Limits.Transactions
	if (limit > 0 && f.Result.Transactions >= limit) || t.cfg.stopped() {
		f.done = true
		return
	}
	en := t.open(f, i, now)
	if en == 0 {
		return
	}
	f.Result.Errors.Add(en)
	f.failures++
	if f.Err != nil { // a knob the kernel refused (open): it would refuse every connection
		f.done = true
		return
	}
	if fatalConnect(en) || f.failures >= maxConsecutiveFailures {
		f.fail("connect", en)
		return
	}
	if !f.retry {
		f.retry = true
		t.retries++
	}
	f.retryAt = now
}

func fatalConnect(en unix.Errno) bool {
	switch en {
	case unix.ECONNREFUSED, unix.ENETUNREACH, unix.EHOSTUNREACH, unix.EAFNOSUPPORT, unix.EINVAL, unix.EMFILE, unix.ENFILE:
		return true
	}
	return false
}

// open starts one connection of flow i; on failure the socket is closed.
func (t *crrState) open(f *Flow, i int, now time.Duration) unix.Errno {
	fd, en := sock.SocketProto(t.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, t.cfg.Proto)
	if en != 0 {
		return en
	}
	fail := func(en unix.Errno) unix.Errno { sock.Close(fd); return en }
	if t.cfg.NoDelay {
		if en := sock.SetInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); en != 0 {
			return fail(en)
		}
	}
	if t.cfg.SendBuffer > 0 {
		if en := sock.SetInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, t.cfg.SendBuffer); en != 0 {
			return fail(en)
		}
	}
	if t.cfg.RecvBuffer > 0 {
		if en := sock.SetInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, t.cfg.RecvBuffer); en != 0 {
			return fail(en)
		}
	}
	if t.knobs != nil {
		// Before bind and connect, as mss must be. The client tried them
		// on a probe socket before the interval, so a refusal here is
		// one no connection would get past: it ends the flow with the
		// knob's error (next), not ten thousand retries.
		if err := t.knobs.Apply(fd, t.family, true, true, "client"); err != nil {
			f.Err = err
			return fail(sock.KnobErrno(err))
		}
	}
	switch {
	case f.Walk != nil:
		// netperf's way: SO_REUSEADDR and the walk's next port; a port
		// still taken fails bind or connect, is counted, and the next
		// round tries the port after it.
		if en := sock.SetInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); en != 0 {
			return fail(en)
		}
		f.Local.SetPort(uint16(f.Walk.Next()))
		if en := sock.Bind(fd, f.Local); en != 0 {
			return fail(en)
		}
	case f.Local != nil:
		// Let connect pick the port, so many flows from one address do not
		// exhaust ports at bind time.
		if en := sock.SetInt(fd, unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1); en != 0 {
			return fail(en)
		}
		if en := sock.Bind(fd, f.Local); en != 0 {
			return fail(en)
		}
	}
	remote := t.cfg.Remote
	if f.Remote != nil {
		remote = f.Remote
	}
	en = sock.Connect(fd, remote)
	if en != 0 && en != unix.EINPROGRESS {
		t.close(f, fd)
		return en
	}
	if en := sock.EpollCtl(t.epfd, unix.EPOLL_CTL_ADD, fd, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP|unix.EPOLLET, int32(i)); en != 0 {
		return fail(en)
	}
	c := &t.conns[i]
	*c = crrFlow{fd: fd, phase: sending, t0: now}
	f.inflight = 1
	f.unsent = len(t.req)
	f.got = 0
	if !t.holdSend {
		t.send(f, c) // the connection may already be up
	}
	return 0
}

// send writes what is left of the request; EAGAIN means not yet connected
// or full: the next EPOLLOUT resumes it.
func (t *crrState) send(f *Flow, c *crrFlow) {
	for f.unsent > 0 {
		m, en := sock.Write(c.fd, t.req[len(t.req)-f.unsent:])
		if en == unix.EAGAIN || en == unix.EINTR {
			return
		}
		if en != 0 {
			t.drop(f, c, en)
			return
		}
		f.Result.BytesSent += uint64(m)
		f.unsent -= m
	}
	c.phase = receiving
}

// drop abandons the current connection after a failure and counts it.
func (t *crrState) drop(f *Flow, c *crrFlow, en unix.Errno) {
	t.close(f, c.fd)
	c.fd, c.phase = -1, idle
	f.inflight = 0
	f.Result.Errors.Add(en)
	f.failures++
	if fatalConnect(en) || f.failures >= maxConsecutiveFailures {
		f.fail("connect", en)
	}
}

// event handles readiness of flow i's connection.
func (t *crrState) event(f *Flow, i int, start time.Time) {
	c := &t.conns[i]
	if c.phase == sending {
		t.send(f, c) // a failed connect shows up here as the write's error
		if c.phase == idle && !f.done {
			t.next(f, i, time.Since(start))
		}
		if c.phase != receiving {
			return
		}
	}
	for {
		n, en := sock.Read(c.fd, t.buf)
		if en == unix.EAGAIN || en == unix.EINTR {
			return
		}
		if en != 0 {
			t.drop(f, c, en)
			if !f.done {
				t.next(f, i, time.Since(start))
			}
			return
		}
		if n > 0 {
			f.Result.BytesReceived += uint64(n)
			f.got += n
			continue
		}
		// The server closed first: the transaction is complete if the whole
		// response came.
		if f.got < t.cfg.Response {
			t.drop(f, c, unix.ECONNRESET)
			if !f.done {
				t.next(f, i, time.Since(start))
			}
			return
		}
		t.close(f, c.fd)
		c.fd, c.phase = -1, idle
		f.inflight = 0
		f.Result.Connects++
		f.failures = 0
		now := time.Since(start)
		if f.record(now, now-c.t0, t.dead) {
			t.next(f, i, now)
		}
		return
	}
}
