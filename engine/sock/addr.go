package sock

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Family selects the address family of a test: IPv4, IPv6, or whichever the
// host name resolves to first.
type Family int

// The families a test can ask for.
const (
	Auto Family = iota
	Inet
	Inet6
)

// String returns the name scripts use for f.
func (f Family) String() string {
	switch f {
	case Inet:
		return "inet"
	case Inet6:
		return "inet6"
	}
	return "auto"
}

// ParseFamily reads "inet", "inet6" or "auto" (also "4" and "6").
func ParseFamily(s string) (Family, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "inet", "4", "ipv4":
		return Inet, nil
	case "inet6", "6", "ipv6":
		return Inet6, nil
	}
	return Auto, fmt.Errorf("unknown family %q (want \"inet\", \"inet6\" or \"auto\")", s)
}

// Addr is an IP address and port, or a UNIX domain socket's name (unix.go),
// together with its kernel sockaddr form, built once so that the data path
// can pass it to raw calls without allocating.
type Addr struct {
	ap     netip.AddrPort
	raw    rawSockaddr
	rawLen uint32
}

// rawSockaddr holds the kernel's form of any address netscript uses:
// sockaddr_in, sockaddr_in6 or sockaddr_un. Its first member gives it
// sockaddr_in6's alignment; the padding makes room for sockaddr_un.
type rawSockaddr struct {
	in6 unix.RawSockaddrInet6
	_   [unix.SizeofSockaddrUnix - unix.SizeofSockaddrInet6]byte
}

// in4 is the raw form as a sockaddr_in.
func (r *rawSockaddr) in4() *unix.RawSockaddrInet4 {
	return (*unix.RawSockaddrInet4)(unsafe.Pointer(r))
}

// un is the raw form as a sockaddr_un.
func (r *rawSockaddr) un() *unix.RawSockaddrUnix { return (*unix.RawSockaddrUnix)(unsafe.Pointer(r)) }

// NewAddr builds an Addr from an address and port. IPv4-mapped IPv6
// addresses are treated as IPv4.
func NewAddr(ap netip.AddrPort) *Addr {
	a := &Addr{}
	a.set(ap)
	return a
}

func (a *Addr) set(ap netip.AddrPort) {
	ip := ap.Addr().Unmap()
	a.ap = netip.AddrPortFrom(ip, ap.Port())
	a.raw = rawSockaddr{}
	if ip.Is4() {
		r := a.raw.in4()
		r.Family = unix.AF_INET
		binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&r.Port))[:], ap.Port())
		r.Addr = ip.As4()
		a.rawLen = unix.SizeofSockaddrInet4
		return
	}
	r := &a.raw.in6
	r.Family = unix.AF_INET6
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&r.Port))[:], ap.Port())
	r.Addr = ip.As16()
	if z := ip.Zone(); z != "" {
		if ifi, err := net.InterfaceByName(z); err == nil {
			r.Scope_id = uint32(ifi.Index)
		} else if n, err := strconv.Atoi(z); err == nil {
			r.Scope_id = uint32(n)
		}
	}
	a.rawLen = unix.SizeofSockaddrInet6
}

// AddrPort returns the address as a netip.AddrPort. For an Addr filled in by
// the kernel (RecvFrom, Accept) it decodes the raw form.
func (a *Addr) AddrPort() netip.AddrPort {
	if a.rawLen != 0 && !a.ap.IsValid() {
		return a.decode()
	}
	return a.ap
}

// decode reads the raw sockaddr the kernel wrote; a UNIX domain name has
// no AddrPort (Name has it).
func (a *Addr) decode() netip.AddrPort {
	switch a.raw.in6.Family {
	case unix.AF_INET:
		r := a.raw.in4()
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&r.Port))[:])
		return netip.AddrPortFrom(netip.AddrFrom4(r.Addr), port)
	case unix.AF_INET6:
		r := &a.raw.in6
		port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&r.Port))[:])
		return netip.AddrPortFrom(netip.AddrFrom16(r.Addr).Unmap(), port)
	}
	return netip.AddrPort{}
}

// SetPort changes the port of an address built by NewAddr, in place and
// without allocating (TCP_CRR's port walk binds a new port per connection).
func (a *Addr) SetPort(port uint16) {
	a.ap = netip.AddrPortFrom(a.ap.Addr(), port)
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&a.raw.in6.Port))[:], port) // sockaddr_in's port is at the same place
}

// Received marks a as filled in by the kernel, so AddrPort decodes it anew.
func (a *Addr) Received() { a.ap = netip.AddrPort{} }

// Family returns unix.AF_INET, unix.AF_INET6 or unix.AF_UNIX.
func (a *Addr) Family() int {
	switch f := int(a.raw.in6.Family); f {
	case unix.AF_INET, unix.AF_UNIX:
		return f
	}
	return unix.AF_INET6
}

// IsUnix reports whether a is a UNIX domain socket's address.
func (a *Addr) IsUnix() bool { return a.raw.in6.Family == unix.AF_UNIX }

// String formats the address as host:port ([v6]:port for IPv6), or a
// UNIX domain socket's name (Name).
func (a *Addr) String() string {
	if a.IsUnix() {
		return a.Name()
	}
	return a.AddrPort().String()
}

// Resolve turns a host name or literal and a port into an address of the
// wanted family. A literal of the wrong family is an error that says so.
func Resolve(ctx context.Context, host string, port int, fam Family) (netip.AddrPort, error) {
	if port < 0 || port > 65535 {
		return netip.AddrPort{}, fmt.Errorf("port %d out of range 0-65535", port)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if fam == Inet && !ip.Is4() {
			return netip.AddrPort{}, fmt.Errorf("address %s is not IPv4 but family is inet", host)
		}
		if fam == Inet6 && !ip.Is6() {
			return netip.AddrPort{}, fmt.Errorf("address %s is not IPv6 but family is inet6", host)
		}
		return netip.AddrPortFrom(ip, uint16(port)), nil
	}
	network := "ip"
	switch fam {
	case Inet:
		network = "ip4"
	case Inet6:
		network = "ip6"
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, network, host)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return netip.AddrPort{}, fmt.Errorf("resolve %s: no %s address", host, fam)
	}
	return netip.AddrPortFrom(ips[0].Unmap(), uint16(port)), nil
}

// Loopback returns the loopback address of the family (127.0.0.1 for Auto).
func Loopback(fam Family) netip.Addr {
	if fam == Inet6 {
		return netip.IPv6Loopback()
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}
