package result

import (
	"math"
	"testing"
)

func cc(name string) (b [16]byte) { copy(b[:], name); return }

// TestTCPSums: what the figures of several connections become, each case
// a way they combine.
func TestTCPSums(t *testing.T) {
	a := TCPConn{Retrans: 3, RTT: 100, RTTVar: 10, MinRTT: 50, Cwnd: 10, Ssthresh: TCPInfiniteSsthresh, MSS: 1448,
		PacingRate: 1e6, BusyTime: 500, RwndLimited: 100, Congestion: cc("cubic")}
	b := TCPConn{Retrans: 1, RTT: 300, RTTVar: 30, MinRTT: 150, Cwnd: 30, Ssthresh: 20, MSS: 1448,
		PacingRate: 3e6, BusyTime: 500, RwndLimited: 300, CAState: 4, Congestion: cc("cubic")}
	noSample := TCPConn{Cwnd: 10, MinRTT: math.MaxUint32, Congestion: cc("reno")}
	// An RTT without a minimum beside it.
	seeded := TCPConn{RTT: 900, RTTVar: 450, MinRTT: math.MaxUint32, Cwnd: 10, Congestion: cc("cubic")}
	for _, c := range []struct {
		name  string
		conns []TCPConn
		span  uint64 // ns
		check func(t *TCP) bool
	}{
		// Counts sum; RTT, cwnd and rates are means with a max beside.
		{"two connections", []TCPConn{a, b}, 2e6, func(t *TCP) bool {
			return t.Connections == 2 && t.Retransmits == 4 && t.RTT == 200 && t.RTTMax == 300 && t.MinRTT == 100 &&
				t.Cwnd == 20 && t.CwndMax == 30 && t.PacingRate == 8*2e6 && t.Congestion == "cubic" && t.CAState == "mixed"
		}},
		// ssthresh is the kernel's infinity until the first loss: left out.
		{"slow start", []TCPConn{a}, 1e6, func(t *TCP) bool { return t.Ssthresh == 0 && t.CAState == "open" }},
		{"past slow start", []TCPConn{a, b}, 2e6, func(t *TCP) bool { return t.Ssthresh == 20 }},
		// A connection without an RTT sample does not pull the mean to 0.
		{"no RTT sample", []TCPConn{a, noSample}, 2e6, func(t *TCP) bool { return t.RTT == 100 && t.MinRTT == 50 && t.Congestion == "mixed" }},
		// Nor does one with an RTT and no minimum: min_rtt stays the
		// measured connection's, not half of it.
		{"RTT without a minimum", []TCPConn{a, seeded}, 2e6, func(t *TCP) bool {
			return t.RTT == 100 && t.MinRTT == 50 && t.RTTMax == 100 && t.Connections == 2
		}},
		// Busy figures are fractions of the time the connections spanned.
		{"fractions", []TCPConn{a, b}, 2e6, func(t *TCP) bool {
			return t.BusyTime == 1000 && t.BusyFraction == 0.5 && t.RwndLimited == 400 && t.RwndLimitedFraction == 0.2
		}},
	} {
		var s TCPSums
		for i := range c.conns {
			s.Add(&c.conns[i])
		}
		s.SpanNs = c.span
		got := TCPOf(&s)
		if got == nil || !c.check(got) {
			t.Errorf("%s: %+v", c.name, got)
		}
		// Merged in halves, the sums are the same.
		var h1, h2, m TCPSums
		for i := range c.conns {
			if i%2 == 0 {
				h1.Add(&c.conns[i])
			} else {
				h2.Add(&c.conns[i])
			}
		}
		h1.SpanNs = c.span
		m.Merge(&h1)
		m.Merge(&h2)
		if m != s {
			t.Errorf("%s: merged\n%+v\nadded\n%+v", c.name, m, s)
		}
	}
	if TCPOf(&TCPSums{}) != nil || MergeTCP(nil, nil) != nil {
		t.Error("no connection read should be None")
	}
}
