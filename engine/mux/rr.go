package mux

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// tickMs is how long epoll_wait may block.
var tickMs = int(sock.Tick / time.Millisecond)

// RunRR drives TCP_RR over the connected sockets of flows, from start until
// the limits or Stop, on cfg.Threads threads (each locked to its OS thread;
// the caller accounts for them in workload.Threads). It returns when every
// flow has finished.
func RunRR(start time.Time, flows []*Flow, cfg *Config) {
	runNow(start, flows, cfg, PrepareRR)
}

// PrepareRR sets TCP_RR up over the connected sockets of flows on
// cfg.Threads threads and returns them waiting for Start.
func PrepareRR(flows []*Flow, cfg *Config) (*Runner, error) {
	return prepare(flows, cfg, func(part []*Flow) (func(time.Time), error) {
		epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return nil, fmt.Errorf("epoll_create1: %w", err)
		}
		for i, f := range part {
			f.sent = make([]time.Duration, cfg.Burst+1)
			if err := sock.SetNonblock(f.FD, true); err != nil {
				unix.Close(epfd)
				return nil, err
			}
			if en := sock.EpollCtl(epfd, unix.EPOLL_CTL_ADD, f.FD, unix.EPOLLIN, int32(i)); en != 0 {
				unix.Close(epfd)
				return nil, fmt.Errorf("epoll_ctl: %w", en)
			}
		}
		return func(start time.Time) {
			defer unix.Close(epfd)
			if !start.IsZero() {
				rrThread(start, part, cfg, epfd)
			}
		}, nil
	})
}

// rrThread is one thread's share of a TCP_RR test.
func rrThread(start time.Time, flows []*Flow, cfg *Config, epfd int) {
	dead := cfg.deadline()
	req := make([]byte, cfg.Request)
	buf := make([]byte, min(max(cfg.Response, 1), 1<<20))
	events := make([]unix.EpollEvent, min(len(flows), 512))
	active := len(flows)
	t := &rrState{cfg: cfg, req: req, buf: buf, dead: dead, epfd: epfd, quickAck: cfg.Knobs != nil && cfg.Knobs.QuickAck}
	for i, f := range flows {
		if !f.done {
			f.Result.Began = time.Since(start)
			for k := 0; k <= cfg.Burst; k++ {
				t.issue(f, i, 0)
			}
			if f.done {
				active--
			}
		}
	}
	byDeadline := false
	for active > 0 && !cfg.stopped() {
		n, en := sock.EpollWait(epfd, events, tickMs)
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
			if f.done {
				continue
			}
			if ev.Events&unix.EPOLLOUT != 0 && f.unsent > 0 {
				t.flush(f, i)
			}
			if ev.Events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
				t.receive(f, i, start)
			}
			if f.done {
				active--
			}
		}
	}
	for _, f := range flows {
		f.censorRing(f.endAt(byDeadline, dead, start))
		f.finish(byDeadline, dead)
	}
}

// rrState is what one thread's flows share.
type rrState struct {
	cfg  *Config
	req  []byte
	buf  []byte
	dead time.Duration
	epfd int
	// quickAck re-arms TCP_QUICKACK after each receive (quickack=True),
	// as workload.RR does: one setsockopt per receive, only when asked.
	quickAck bool
}

// issue sends flow i's next request, stamped now, unless its count limit
// is reached.
func (t *rrState) issue(f *Flow, i int, now time.Duration) {
	limit := t.cfg.Limits.Transactions
	if limit > 0 && f.issued >= limit {
		if f.inflight == 0 {
			f.done = true
		}
		return
	}
	f.sent[(f.head+f.inflight)%len(f.sent)] = now
	f.inflight++
	f.issued++
	f.unsent += len(t.req)
	t.flush(f, i)
}

// flush writes what is left of f's requests; if the socket is full it asks
// epoll to say when it can take more.
func (t *rrState) flush(f *Flow, i int) {
	for f.unsent > 0 {
		n := min(f.unsent, len(t.req))
		m, en := sock.Write(f.FD, t.req[len(t.req)-n:])
		if en == unix.EAGAIN {
			if !f.waitOut {
				f.waitOut = true
				sock.EpollCtl(t.epfd, unix.EPOLL_CTL_MOD, f.FD, unix.EPOLLIN|unix.EPOLLOUT, int32(i))
			}
			return
		}
		if en == unix.EINTR {
			continue
		}
		if en != 0 {
			f.fail("send", en)
			return
		}
		f.Result.BytesSent += uint64(m)
		f.unsent -= m
		if f.unsent == 0 && f.waitOut {
			f.waitOut = false
			sock.EpollCtl(t.epfd, unix.EPOLL_CTL_MOD, f.FD, unix.EPOLLIN, int32(i))
		}
	}
}

// receive reads once from f; each complete response is a transaction, and
// the next request goes out at once.
func (t *rrState) receive(f *Flow, i int, start time.Time) {
	want := min(t.cfg.Response-f.got, len(t.buf))
	n, en := sock.Read(f.FD, t.buf[:want])
	if en == unix.EAGAIN || en == unix.EINTR {
		return
	}
	if en != 0 {
		f.fail("recv", en)
		return
	}
	if t.quickAck {
		sock.QuickAck(f.FD)
	}
	if n == 0 {
		f.Err = errPeerClosed
		f.done = true
		return
	}
	f.Result.BytesReceived += uint64(n)
	f.got += n
	if f.got < t.cfg.Response {
		return
	}
	f.got = 0
	now := time.Since(start)
	lat := now - f.sent[f.head]
	f.head = (f.head + 1) % len(f.sent)
	f.inflight--
	if !f.record(now, lat, t.dead) {
		return
	}
	if t.cfg.stopped() {
		return
	}
	t.issue(f, i, now)
}

type peerClosed struct{}

func (peerClosed) Error() string {
	return "recv: the server closed the data connection before the test ended"
}

var errPeerClosed error = peerClosed{}
