package server

import "net/netip"

// Per-client bounds (--max-pending-per-client, and the waiting room of a
// data port) count a client by its network, not its exact address: one
// host commonly holds a whole IPv4 /24 or IPv6 /64 (a subnet of its own,
// SLAAC privacy addresses, 127.0.0.0/8), so counting exact addresses would
// let it take every slot with as many addresses.
const (
	prefix4 = 24
	prefix6 = 64
)

// prefixOf is the network a client address is counted under.
func prefixOf(a netip.Addr) netip.Prefix {
	a = a.Unmap()
	bits := prefix6
	if a.Is4() {
		bits = prefix4
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return netip.Prefix{} // the zero address: all such count together
	}
	return p
}
