package workload

import (
	"net/netip"
	"slices"

	"netscript/engine/sock"
)

// Allow is the set of sources a test's server side takes data from.
// TCP_CRR connections and UDP datagrams carry no tag (a tag would change
// the workload), so they are told apart from a stranger's by source: a
// TCP_CRR connection by its address (the control connection's and the
// sources the client declared; TCP cannot be spoofed past its handshake),
// a UDP datagram by the exact address and port whose Hello carried the
// session's tag (NewAllowPorts), or, for a netperf client, which cannot
// tag, by the control connection's address. Over UNIX domain sockets a
// datagram is told by the name its socket is bound to (which one socket at
// a time can hold), and a connection per transaction by the process that
// made it (SO_PEERCRED, which the kernel records). A nil *Allow allows
// everyone.
type Allow struct {
	addrs []netip.Addr
	ports []netip.AddrPort // if set, only these exact sources
	nets  []netip.Prefix   // if set, any address in these networks
	names []string         // UNIX domain datagram sockets' names ("@...")
	pids  []int32          // processes whose UNIX domain connections are the client's
}

// NewAllowNets returns the set of every address in nets (an operator's
// --data ...,from=PREFIX).
func NewAllowNets(nets []netip.Prefix) *Allow {
	a := &Allow{}
	for _, n := range nets {
		a.nets = append(a.nets, netip.PrefixFrom(n.Addr().Unmap(), n.Bits()).Masked())
	}
	return a
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

// NewAllowPorts returns the set of exact sources aps (IPv4-mapped ones as
// IPv4).
func NewAllowPorts(aps []netip.AddrPort) *Allow {
	a := &Allow{ports: []netip.AddrPort{}}
	for _, x := range aps {
		a.ports = append(a.ports, netip.AddrPortFrom(x.Addr().Unmap(), x.Port()))
	}
	return a
}

// Admits reports whether the source ap may send data: its exact address
// and port for a set of sources, its address for a set of addresses. A nil
// set admits everyone.
func (a *Allow) Admits(ap netip.AddrPort) bool {
	if a == nil {
		return true
	}
	if a.ports == nil {
		return a.Has(ap.Addr())
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	for _, x := range a.ports {
		if x == ap {
			return true
		}
	}
	return false
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
	for _, n := range a.nets {
		if n.Contains(addr) {
			return true
		}
	}
	return false
}

// From reports whether a datagram from from, filled in by the kernel, may
// be taken: its IP source is admitted (Admits), or its UNIX domain name is
// in the set.
func (a *Allow) From(from *sock.Addr) bool {
	if a == nil {
		return true
	}
	if from.IsUnix() {
		return slices.Contains(a.names, from.Name())
	}
	return a.Admits(from.AddrPort())
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
