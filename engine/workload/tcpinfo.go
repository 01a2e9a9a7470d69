package workload

import (
	"netscript/engine/result"
	"netscript/engine/sock"
)

// tcpNote reads one connection's TCP_INFO into sums, for loops that
// open a connection per transaction: their figures are over each
// connection's whole life. It allocates nothing.
type tcpNote struct {
	r sock.TCPReader
	c result.TCPConn
}

// note adds fd's reading to sums.
func (t *tcpNote) note(fd int, sums *result.TCPSums) {
	if t.r.Conn(fd, &t.c) == 0 {
		sums.Add(&t.c)
	}
}
