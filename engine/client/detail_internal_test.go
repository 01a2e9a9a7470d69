package client

import (
	"os"
	"strings"
	"testing"
)

// TestNextCongestion: a test whose last connection ended between two
// transactions reports the algorithm its next socket would have had: the
// one asked for, else the namespace's default (netperf's TCP_CRR reports
// it; a CI run under load printed LOCAL_CONG_CONTROL= where netperf
// printed bbr).
func TestNextCongestion(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
	if err != nil {
		t.Skipf("no default congestion control to compare with: %v", err)
	}
	for _, c := range []struct{ asked, want string }{
		{"", strings.TrimSpace(string(b))},
		{"reno", "reno"},
	} {
		if got := nextCongestion(c.asked); got != c.want {
			t.Errorf("nextCongestion(%q) = %q, want %q", c.asked, got, c.want)
		}
	}
}
