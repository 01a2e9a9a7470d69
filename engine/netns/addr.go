package netns

import (
	"fmt"
	"net/netip"
)

// The only address ranges tests may use: RFC 2544's benchmarking network
// and RFC 5180's IPv6 benchmarking prefix.
const (
	allowed4 = "198.18.0.0/15"
	allowed6 = "2001:2::/48"
)

// allowedRange returns the benchmarking range of a's family.
func allowedRange(a netip.Addr) netip.Prefix {
	if a.Is4() {
		return netip.MustParsePrefix(allowed4)
	}
	return netip.MustParsePrefix(allowed6)
}

// CheckAddr reports an error unless a is inside 198.18.0.0/15 or
// 2001:2::/48. IPv4-mapped IPv6 addresses and addresses with a zone are
// refused too.
func CheckAddr(a netip.Addr) error {
	if !a.IsValid() {
		return fmt.Errorf("netns: invalid address")
	}
	if a.Zone() != "" {
		return fmt.Errorf("netns: address %s has a zone; use a plain address in %s or %s", a, allowed4, allowed6)
	}
	if a.Is4In6() || !allowedRange(a).Contains(a) {
		return fmt.Errorf("netns: address %s is outside the benchmarking ranges %s and %s", a, allowed4, allowed6)
	}
	return nil
}

// CheckCIDR parses an address in CIDR form ("198.18.0.1/24",
// "2001:2::1/64") and returns it, or an error unless both the address and
// the whole prefix lie inside 198.18.0.0/15 or 2001:2::/48. The host bits
// are kept: the result of "198.18.0.1/24" is 198.18.0.1/24.
func CheckCIDR(cidr string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("netns: address %q is not in CIDR form (like 198.18.0.1/24 or 2001:2::1/64): %v", cidr, err)
	}
	if err := CheckAddr(p.Addr()); err != nil {
		return netip.Prefix{}, err
	}
	if r := allowedRange(p.Addr()); p.Bits() < r.Bits() {
		return netip.Prefix{}, fmt.Errorf("netns: prefix %s is wider than the benchmarking range %s", p, r)
	}
	return p, nil
}
