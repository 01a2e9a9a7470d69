package workload

import "netscript/engine/result"

// TCPNote reads the TCP_INFO of the client's connections that each carry
// one transaction into sums, exactly as CRR does with tcp_info=True (one
// system call per connection, the algorithm's name read from the first,
// connects that never completed left out): package mux notes its
// multiplexed tcp_crr and tcp_cc connections with it, so both paths'
// figures mean the same.
type TCPNote struct{ n tcpNote }

// Note adds fd's reading to sums; fd is about to be closed.
func (t *TCPNote) Note(fd int, sums *result.TCPSums) { t.n.note(fd, sums, true) }
