package workload

import (
	"net/netip"
	"slices"

	"netscript/engine/sock"
)

// Allow is the set of client addresses a test's server side takes data
// from when its session is authenticated. TCP_CRR connections and UDP
// datagrams carry no tag (a tag would change the workload), so they are
// told apart from a stranger's by source address: the control connection's
// and the sources the client declared. Over UNIX domain sockets a datagram
// is told by the name its socket is bound to (which one socket at a time
// can hold), and a connection per transaction by the process that made it
// (SO_PEERCRED, which the kernel records). A nil *Allow allows everyone.
type Allow struct {
	addrs []netip.Addr
	names []string // UNIX domain datagram sockets' names ("@...")
	pids  []int32  // processes whose UNIX domain connections are the client's
}

// NewAllow returns the set of addrs (IPv4-mapped ones as IPv4).
func NewAllow(addrs []netip.Addr) *Allow {
	a := &Allow{}
	for _, x := range addrs {
		a.addrs = append(a.addrs, x.Unmap())
	}
	return a
}

// AllowUnix adds UNIX domain socket names and process ids to the set.
func (a *Allow) AllowUnix(names []string, pids []int32) {
	a.names = append(a.names, names...)
	a.pids = append(a.pids, pids...)
}

// Has reports whether addr may send data; a nil set allows every address.
// It allocates nothing: the set is a handful of addresses.
func (a *Allow) Has(addr netip.Addr) bool {
	if a == nil {
		return true
	}
	addr = addr.Unmap()
	for _, x := range a.addrs {
		if x == addr {
			return true
		}
	}
	return false
}

// From reports whether a datagram from from, filled in by the kernel, may
// be taken: its IP address is in the set, or its UNIX domain name is.
func (a *Allow) From(from *sock.Addr) bool {
	if a == nil {
		return true
	}
	if from.IsUnix() {
		return slices.Contains(a.names, from.Name())
	}
	return a.Has(from.AddrPort().Addr())
}

// Conn reports whether the connection fd, accepted from peer, may be
// served: its IP address is in the set, or, over a UNIX domain socket, the
// process that made it is.
func (a *Allow) Conn(fd int, peer *sock.Addr) bool {
	if a == nil {
		return true
	}
	if peer.IsUnix() {
		pid, en := sock.PeerPID(fd)
		return en == 0 && slices.Contains(a.pids, pid)
	}
	return a.Has(peer.AddrPort().Addr())
}
