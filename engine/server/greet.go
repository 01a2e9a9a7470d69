package server

import (
	"net/netip"
	"sync"

	"golang.org/x/sys/unix"

	"netscript/engine/auth"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// An endpoint served per endpoint (UDP, and TCP_CRR's connection per
// transaction) answers nothing until its test has started, and then only
// its flows: before Start its thread greets them instead of serving.
//
//   - UDP: each flow greets the endpoint (auth.Greeting: Hello, Ack with a
//     cookie, Confirm with it, Done), and the endpoint then takes that
//     flow's datagrams from the exact address and port that brought the
//     cookie back. Anything without the session's tag is counted and never
//     answered; no answer is larger than what it answers.
//   - TCP_CRR: each flow first makes one connection that shows the tag and
//     is answered with the server's; its transactions' connections then
//     come from the client's addresses, as TCP's own handshake shows.
//
// The greeting goes on until Start, so a flow whose Ack was lost and that
// sends its Hello again is answered again.

// serveGreeted is the thread of an endpoint of a native test: it greets
// the endpoint's flows until the test starts (greeted is called once they
// all have, or the greeting ends), then serves it.
func (t *test) serveGreeted(ep *endpoint, check func() error, greeted func()) {
	once := sync.OnceFunc(greeted)
	defer once()
	var ok bool
	if t.w.Datagram {
		ok = t.greetDatagrams(ep, once)
	} else {
		ok = t.greetConnections(ep, once)
	}
	if ok {
		t.serveEndpoint(ep, check)
	}
}

// started reports, without waiting, whether the test has started.
func (t *test) started() bool { return closed(t.begin) }

// greetDatagrams answers the greetings of ep's flows (auth.Greeting)
// until the test starts (true) or is stopped (false), and leaves in
// ep.allowed the source each flow confirmed. A Hello with the session's tag
// is answered with an Ack carrying a cookie for its source; a Confirm that
// brings the cookie back from that source makes it the flow's, and is
// answered with a Done; anything else is counted and never answered.
func (t *test) greetDatagrams(ep *endpoint, all func()) bool {
	var buf [auth.GreetingSize + 1]byte
	cookieKey := auth.NewCookieKey()
	flows := map[uint32]netip.AddrPort{}
	done := func() bool {
		srcs := make([]netip.AddrPort, 0, len(flows))
		for _, s := range flows {
			srcs = append(srcs, s)
		}
		ep.allowed = workload.NewAllowPorts(srcs)
		return true
	}
	for {
		if t.started() {
			return done()
		}
		if t.stopped.Load() {
			return false
		}
		// A peek first: once the test has started, a datagram that is not
		// a greeting is the flow's first data, for the loop to serve.
		n, sa, err := unix.Recvfrom(ep.fd, buf[:], unix.MSG_PEEK) // at most a tick
		if err != nil {
			if err == unix.EBADF || err == unix.EINVAL {
				return false
			}
			continue
		}
		src := addrPortOf(sa)
		kind, flow, cookie, ok := auth.ParseGreeting(t.key, buf[:n])
		if !ok && t.started() {
			return done()
		}
		unix.Recvfrom(ep.fd, buf[:], unix.MSG_DONTWAIT) // the datagram peeked at
		owner, taken := flows[flow]
		if !ok || !ep.want[flow] || taken && owner != src {
			t.strangers.Add(1) // never answered
			continue
		}
		var answer []byte
		switch want := auth.MakeCookie(cookieKey, flow, src); {
		case kind == auth.KindHello:
			answer = auth.Greeting(t.key, auth.KindAck, flow, want)
		case kind == auth.KindConfirm && cookie == want:
			if !taken {
				flows[flow] = src
				t.arrive()
				if len(flows) == len(ep.want) {
					all()
				}
			}
			answer = auth.Greeting(t.key, auth.KindDone, flow, want)
		default:
			t.strangers.Add(1)
			continue
		}
		sock.SendTo(ep.fd, answer, 0, sock.NewAddr(src))
	}
}

// addrPortOf is a received datagram's source.
func addrPortOf(sa unix.Sockaddr) netip.AddrPort {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port))
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr).Unmap(), uint16(a.Port))
	}
	return netip.AddrPort{}
}

// greetConnections takes ep's flows' first connections, each proving the
// session's tag and answered with the server's (acceptTagged), until the
// test starts (true) or is stopped (false).
func (t *test) greetConnections(ep *endpoint, all func()) bool {
	var peer sock.Addr
	for n := 0; ; {
		fd := t.acceptTagged(ep, &peer, t.begin)
		if fd < 0 {
			ep.tags.close() // strangers still proving a tag: never a flow
			return t.started()
		}
		sock.Close(fd)
		if n++; n == ep.flows {
			all()
		}
	}
}
