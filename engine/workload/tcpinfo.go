package workload

import (
	"golang.org/x/sys/unix"

	"netscript/engine/result"
	"netscript/engine/sock"
)

// tcpNote reads one connection's TCP_INFO into sums, for loops that
// open a connection per transaction: their figures are over each
// connection's whole life. It allocates nothing, and makes one system
// call per connection: the congestion control algorithm, which every
// connection of the loop gets alike, is read from the first.
type tcpNote struct {
	r      sock.TCPReader
	c      result.TCPConn
	cc     [16]byte
	haveCC bool
}

// note adds fd's reading to sums. active says fd is the client's own
// connect: one whose handshake never completed (refused, reset, or
// abandoned in SYN-SENT at the deadline) is left out, since its cwnd,
// MSS and RTT are the kernel's defaults and would drag the means toward
// figures no path had; result.errors and the discarded count already say
// what became of it.
func (t *tcpNote) note(fd int, sums *result.TCPSums, active bool) {
	var en unix.Errno
	if t.haveCC {
		en = t.r.Stats(fd, &t.c)
		t.c.Congestion = t.cc
	} else {
		en = t.r.Conn(fd, &t.c)
	}
	if en != 0 || active && !t.r.Handshaken() {
		return
	}
	if !t.haveCC {
		t.cc, t.haveCC = t.c.Congestion, true
	}
	sums.Add(&t.c)
}
