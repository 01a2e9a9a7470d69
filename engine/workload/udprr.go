package workload

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// MaxDatagram is the largest UDP payload over IPv4 (65535 − 20 − 8).
const MaxDatagram = 65507

// errPaced is what a paced issue returns when it gave up waiting (the loop
// was stopped or the deadline passed); it is never a kernel's errno.
const errPaced = unix.Errno(0x7fff)

// UDPRR is the client loop of UDP_RR on a connected UDP socket: a request
// datagram and its response datagram, Burst more kept in flight. A response
// that does not come within Timeout is counted as lost and the test goes on
// (netperf's UDP_RR would block until the end of the test).
type UDPRR struct {
	Loop
	FD       int
	Request  int
	Response int
	Burst    int
	Timeout  time.Duration // per-transaction loss timeout

	req  []byte
	rbuf []byte
	sent []time.Duration // ring of the instants latency is charged from
	at   []time.Duration // ring of send times, which the loss timeout runs from
}

// Prepare allocates the loop's buffers and sets the socket's receive
// timeout, so a lost datagram wakes the loop in time.
func (u *UDPRR) Prepare() error {
	u.req = make([]byte, u.Request)
	u.rbuf = make([]byte, MaxDatagram+1)
	u.sent = make([]time.Duration, u.Burst+1)
	u.at = make([]time.Duration, u.Burst+1)
	wake := sock.Tick
	if u.Timeout > 0 && u.Timeout < wake {
		wake = u.Timeout
	}
	return sock.SetRecvTimeout(u.FD, wake)
}

// Run runs the measured interval.
func (u *UDPRR) Run() {
	u.init()
	if u.req == nil {
		if err := u.Prepare(); err != nil {
			u.Err = err
			return
		}
	}
	slots := len(u.sent)
	var inflight, head int
	var issued uint64
	limit := u.Limits.Transactions
	issue := func(now time.Duration) unix.Errno {
		if limit > 0 && issued >= limit {
			return 0
		}
		stamp := now
		if u.paced() {
			var ok bool
			if stamp, ok = u.paceFrom(now); !ok {
				return errPaced
			}
			now = stamp
			if u.Arrive != nil { // stamp is the intended start
				now = time.Since(u.Start)
			}
		}
		for {
			n, en := sock.Write(u.FD, u.req)
			if en == unix.EINTR {
				continue
			}
			if en == unix.ENOBUFS || en == unix.EAGAIN {
				// The local queue is full: the datagram never left. Count it
				// and treat the transaction as lost on the spot.
				u.Result.Errors.Add(en)
				return en
			}
			if en != 0 {
				return en
			}
			u.Result.BytesSent += uint64(n)
			break
		}
		i := (head + inflight) % slots
		u.sent[i], u.at[i] = stamp, now
		inflight++
		issued++
		return 0
	}
	for i := 0; i < slots; i++ {
		if en := issue(0); en == errPaced {
			u.end(!u.stopped(), inflight, u.sent, head)
			return
		} else if en != 0 && en != unix.ENOBUFS && en != unix.EAGAIN {
			u.fail("send", en)
			u.finish(false)
			return
		}
	}
	byDeadline := false
	for inflight > 0 {
		n, en := sock.Read(u.FD, u.rbuf)
		now := time.Since(u.Start)
		if en != 0 {
			if en != unix.EAGAIN && en != unix.EINTR {
				u.fail("recv", en) // ECONNREFUSED: the server's port is gone
				break
			}
			if u.stopped() {
				break
			}
			if now >= u.dead {
				byDeadline = true
				break
			}
			// Give up on every request older than the loss timeout.
			for inflight > 0 && now-u.at[head] >= u.Timeout {
				head = (head + 1) % slots
				inflight--
				u.Result.Lost++
				if en := issue(now); en == errPaced {
					u.end(!u.stopped(), inflight, u.sent, head)
					return
				} else if en != 0 && en != unix.ENOBUFS && en != unix.EAGAIN {
					u.fail("send", en)
					u.finish(false)
					return
				}
			}
			// A loop that gives up on lost requests and sends new ones
			// goes on: its Live counters say so (a loss is no stall).
			u.publish(now)
			continue
		}
		u.Result.BytesReceived += uint64(n)
		lat := now - u.sent[head]
		head = (head + 1) % slots
		inflight--
		if !u.done(now, lat) {
			byDeadline = true
			break
		}
		u.last = now
		if u.stopped() {
			break
		}
		if en := issue(now); en == errPaced {
			byDeadline = !u.stopped()
			break
		} else if en != 0 && en != unix.ENOBUFS && en != unix.EAGAIN {
			u.fail("send", en)
			break
		}
	}
	u.end(byDeadline, inflight, u.sent, head)
}

// UDPRRServer is the server loop of UDP_RR: every datagram received is
// answered with one response datagram to its sender.
type UDPRRServer struct {
	FD       int
	Response int
	Allowed  *Allow // if set, only these sources are answered (authenticated sessions)
	Stop     *atomic.Bool
	// EndOnEmpty: an empty datagram from an admitted source ends the loop
	// (counted in Markers, not answered): netperf's end of a UDP_RR test.
	// A netscript client's requests are never empty.
	EndOnEmpty bool
	// Standing: no handshake tells the client from anyone who spoofs its
	// address, so a datagram shorter than the response is not answered
	// (counted with Strangers): nothing is answered with more bytes than
	// it carried, unless the operator named the networks it answers
	// (Allowed), where a reflection can land only on their own.
	Standing bool
	ServerOutcome

	rbuf []byte
	resp []byte
	from sock.Addr
}

// Prepare allocates the loop's buffers.
func (s *UDPRRServer) Prepare() {
	s.rbuf = make([]byte, MaxDatagram+1)
	s.resp = make([]byte, s.Response)
}

// Run serves until Stop is set and then, so that requests the client sent
// before it stopped are answered and counted (the client counts them as
// discarded), until the socket has been quiet for a tick (at most MaxDrain).
func (s *UDPRRServer) Run() {
	if s.rbuf == nil {
		s.Prepare()
	}
	var gate sourceGate
	var stopAt time.Time
	var q quiet
	for {
		if stopAt.IsZero() {
			if s.Stop.Load() {
				stopAt = time.Now()
				q.start(stopAt)
			}
		} else if time.Since(stopAt) > MaxDrain {
			return
		}
		n, en := sock.RecvFrom(s.FD, s.rbuf, &s.from)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if q.over(time.Now()) {
					return // a quiet tick after Stop
				}
				continue
			}
			s.Counts.Errors.Add(en)
			if en == unix.EBADF || en == unix.EINVAL {
				s.Err = fmt.Errorf("recvfrom: %w", en)
				return
			}
			continue
		}
		if !gate.admit(&s.from, s.Allowed, &s.Counts) {
			continue // not the authenticated client: not answered
		}
		if n == 0 && s.EndOnEmpty {
			s.Counts.Markers++
			return
		}
		if s.Standing && s.Allowed == nil && n < len(s.resp) {
			s.Counts.Strangers++
			continue
		}
		if q.ending() {
			q.heard(time.Now())
		}
		s.Counts.BytesReceived += uint64(n)
		for {
			m, en := sock.SendTo(s.FD, s.resp, 0, &s.from)
			if en == unix.EINTR {
				continue
			}
			if en != 0 {
				s.Counts.Errors.Add(en)
				break
			}
			s.Counts.BytesSent += uint64(m)
			s.Counts.Transactions++
			break
		}
	}
}
