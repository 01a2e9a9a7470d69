package workload

import "net/netip"

// Allow is the set of client addresses a test's server side takes data
// from when its session is authenticated. TCP_CRR connections and UDP
// datagrams carry no tag (a tag would change the workload), so they are
// told apart from a stranger's by source address: the control connection's
// and the sources the client declared. A nil *Allow allows everyone.
type Allow struct {
	addrs []netip.Addr
}

// NewAllow returns the set of addrs (IPv4-mapped ones as IPv4).
func NewAllow(addrs []netip.Addr) *Allow {
	a := &Allow{}
	for _, x := range addrs {
		a.addrs = append(a.addrs, x.Unmap())
	}
	return a
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
