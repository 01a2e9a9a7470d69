package netns

import (
	"net/netip"
	"strings"
	"testing"
)

func TestCheckCIDR(t *testing.T) {
	tests := []struct {
		in   string
		want string // the prefix returned, or "" if refused
		err  string // part of the error when refused
	}{
		{"198.18.0.1/24", "198.18.0.1/24", ""},
		{"198.18.1.16/32", "198.18.1.16/32", ""},
		{"198.19.255.254/15", "198.19.255.254/15", ""},
		{"198.18.0.0/15", "198.18.0.0/15", ""},
		{"2001:2::1/64", "2001:2::1/64", ""},
		{"2001:2:0:ffff::1/128", "2001:2:0:ffff::1/128", ""},
		{"2001:2::/48", "2001:2::/48", ""},
		{"198.17.255.255/32", "", "outside the benchmarking ranges"},
		{"198.20.0.1/24", "", "outside"},
		{"10.0.0.1/24", "", "outside"},
		{"192.168.1.1/24", "", "outside"},
		{"127.0.0.1/8", "", "outside"},
		{"8.8.8.8/32", "", "outside"},
		{"0.0.0.0/0", "", "outside"},
		{"2001:db8::1/64", "", "outside"},
		{"2001:3::1/64", "", "outside"},
		{"::1/128", "", "outside"},
		{"fe80::1/64", "", "outside"},
		{"::ffff:198.18.0.1/128", "", "outside"},
		{"198.18.0.1/14", "", "wider than the benchmarking range 198.18.0.0/15"},
		{"198.18.0.1/0", "", "wider"},
		{"2001:2::1/47", "", "wider than the benchmarking range 2001:2::/48"},
		{"198.18.0.1", "", "not in CIDR form"},
		{"198.18.0.1/33", "", "not in CIDR form"},
		{"fe80::1%eth0/64", "", "not in CIDR form"},
		{"", "", "not in CIDR form"},
	}
	for _, tt := range tests {
		p, err := CheckCIDR(tt.in)
		if tt.want != "" {
			if err != nil || p.String() != tt.want {
				t.Errorf("CheckCIDR(%q) = %v, %v; want %s", tt.in, p, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "netns: ") {
			t.Errorf("CheckCIDR(%q) = %v, %v; want an error containing %q", tt.in, p, err, tt.err)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	for _, s := range []string{"198.18.0.1", "198.19.255.255", "2001:2::1", "2001:2:0:1::2"} {
		if err := CheckAddr(netip.MustParseAddr(s)); err != nil {
			t.Errorf("CheckAddr(%s): %v", s, err)
		}
	}
	for _, s := range []string{"1.1.1.1", "198.20.0.1", "::ffff:198.18.0.1", "2001:2::1%veth0", "2001:db8::1", "::"} {
		if err := CheckAddr(netip.MustParseAddr(s)); err == nil {
			t.Errorf("CheckAddr(%s) accepted it", s)
		}
	}
	if err := CheckAddr(netip.Addr{}); err == nil {
		t.Error("CheckAddr accepted the zero Addr")
	}
}
