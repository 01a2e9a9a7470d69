package workload

import "net/netip"

// Allow is the set of sources a test's server side takes data from.
// TCP_CRR connections and UDP datagrams carry no tag (a tag would change
// the workload), so they are told apart from a stranger's by source: a
// TCP_CRR connection by its address (the control connection's and the
// sources the client declared; TCP cannot be spoofed past its handshake),
// a UDP datagram by the exact address and port whose Hello carried the
// session's tag (NewAllowPorts), or, for a netperf client, which cannot
// tag, by the control connection's address. A nil *Allow allows everyone.
type Allow struct {
	addrs []netip.Addr
	ports []netip.AddrPort // if set, only these exact sources
	nets  []netip.Prefix   // if set, any address in these networks
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
