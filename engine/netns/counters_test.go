package netns

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// Excerpts of the real files (Linux 6.18), shortened.
const (
	realSnmp = `Ip: Forwarding DefaultTTL InReceives
Ip: 2 64 22212688
Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
Tcp: 1 200 120000 -1 498702 498685 0 0 0 19241064 19241263 2 0 2 0
Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
Udp: 2971623 0 0 2971624 0 0 0 0 0
`
	realNetstat = `TcpExt: SyncookiesSent TCPFastOpenActive TCPFastOpenActiveFail TCPFastOpenPassive TCPFastOpenPassiveFail TCPFastOpenListenOverflow TCPFastOpenCookieReqd
TcpExt: 0 7 0 5 0 0 2
IpExt: InNoRoutes InOctets
IpExt: 0 18446744073709551615
`
	realSnmp6 = "Ip6InReceives                   \t1\nIp6OutRequests                  \t10\nUdp6InDatagrams                 \t3\n"
)

func TestParseCounters(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]uint64 // nil: an error is expected
		err  string            // part of the error message
	}{
		{
			name: "snmp",
			in:   realSnmp,
			want: map[string]uint64{
				"IpForwarding": 2, "IpDefaultTTL": 64, "IpInReceives": 22212688,
				"TcpRtoAlgorithm": 1, "TcpRtoMin": 200, "TcpRtoMax": 120000,
				"TcpActiveOpens": 498702, "TcpPassiveOpens": 498685, "TcpAttemptFails": 0,
				"TcpEstabResets": 0, "TcpCurrEstab": 0, "TcpInSegs": 19241064,
				"TcpOutSegs": 19241263, "TcpRetransSegs": 2, "TcpInErrs": 0,
				"TcpOutRsts": 2, "TcpInCsumErrors": 0,
				"UdpInDatagrams": 2971623, "UdpNoPorts": 0, "UdpInErrors": 0,
				"UdpOutDatagrams": 2971624, "UdpRcvbufErrors": 0, "UdpSndbufErrors": 0,
				"UdpInCsumErrors": 0, "UdpIgnoredMulti": 0, "UdpMemErrors": 0,
			},
		},
		{
			name: "netstat",
			in:   realNetstat,
			want: map[string]uint64{
				"TcpExtSyncookiesSent": 0, "TcpExtTCPFastOpenActive": 7,
				"TcpExtTCPFastOpenActiveFail": 0, "TcpExtTCPFastOpenPassive": 5,
				"TcpExtTCPFastOpenPassiveFail": 0, "TcpExtTCPFastOpenListenOverflow": 0,
				"TcpExtTCPFastOpenCookieReqd": 2,
				"IpExtInNoRoutes":             0,
				"IpExtInOctets":               18446744073709551615,
			},
		},
		{
			name: "snmp6",
			in:   realSnmp6,
			want: map[string]uint64{"Ip6InReceives": 1, "Ip6OutRequests": 10, "Udp6InDatagrams": 3},
		},
		{
			name: "concatenated, CRLF, tabs, blank lines",
			in:   "Tcp:\tActiveOpens  PassiveOpens\r\nTcp: 3\t4\r\n\r\n\nUdp6InDatagrams 9\r\n",
			want: map[string]uint64{"TcpActiveOpens": 3, "TcpPassiveOpens": 4, "Udp6InDatagrams": 9},
		},
		{name: "empty", in: "", want: map[string]uint64{}},
		{name: "header with no names", in: "Tcp:\nTcp:\n", want: map[string]uint64{}},
		{name: "negative skipped", in: "Tcp: MaxConn A\nTcp: -1 2\n", want: map[string]uint64{"TcpA": 2}},
		{name: "no value line", in: "Tcp: ActiveOpens\n", err: "line 1: Tcp: header line has no value line"},
		{name: "no value line before next", in: "Tcp: A\nUdp: B\nUdp: 1\n", err: "line 1: Tcp: header line has no value line"},
		{name: "no value line before snmp6", in: "Tcp: A\nIp6X 1\n", err: "header line has no value line"},
		{name: "count mismatch", in: "Tcp: A B\nTcp: 1\n", err: "line 2: Tcp: 2 names but 1 values"},
		{name: "too many values", in: "Tcp: A\nTcp: 1 2\n", err: "1 names but 2 values"},
		{name: "not a number", in: "Tcp: A\nTcp: x\n", err: `counter TcpA: value "x" is not a number`},
		{name: "overflow", in: "Tcp: A\nTcp: 18446744073709551616\n", err: "not a number"},
		{name: "plus sign", in: "Ip6X +1\n", err: "not a number"},
		{name: "minus zero", in: "Ip6X -0\n", err: "not a number"},
		{name: "duplicate across files", in: "Tcp: A\nTcp: 1\nTcpA 2\n", err: "counter TcpA appears twice"},
		{name: "duplicate in header", in: "Tcp: A A\nTcp: 1 2\n", err: "appears twice"},
		{name: "colon in name", in: "Tcp: A:B\nTcp: 1\n", err: "contains ':'"},
		{name: "colon in snmp6 name", in: "Ip6:X 1\n", err: "contains ':'"},
		{name: "empty prefix", in: ": A\n: 1\n", err: `bad prefix ":"`},
		{name: "double colon prefix", in: "a:b: A\na:b: 1\n", err: "bad prefix"},
		{name: "three fields", in: "Ip6X 1 2\n", err: "line 1: want \"Prefix: ...\" or \"name value\", got 3 fields"},
		{name: "one field", in: "Ip6X\n", err: "got 1 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCounters([]byte(tt.in))
			if tt.want == nil {
				if err == nil {
					t.Fatalf("got %v, want an error containing %q", got, tt.err)
				}
				if !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "netns: parse counters: ") {
					t.Fatalf("error %q, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tt.want) {
				t.Fatalf("got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// formatCounters writes m in snmp6 form, one "name value" line per counter.
func formatCounters(m map[string]uint64) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s %d\n", k, m[k])
	}
	return b.String()
}

// FuzzParseCounters feeds arbitrary bytes to the parser (seeds in
// testdata/fuzz/FuzzParseCounters). It must never panic, its errors carry
// the package prefix, and whatever it accepts must have sane names and
// survive being written out in snmp6 form and parsed again.
func FuzzParseCounters(f *testing.F) {
	f.Add([]byte(realSnmp + realNetstat + realSnmp6))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseCounters(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "netns: parse counters: line ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			if m != nil {
				t.Fatalf("error %v with a result %v", err, m)
			}
			return
		}
		for k := range m {
			if k == "" || strings.Contains(k, ":") || strings.IndexFunc(k, unicode.IsSpace) >= 0 {
				t.Fatalf("bad counter name %q", k)
			}
		}
		back, err := ParseCounters([]byte(formatCounters(m)))
		if err != nil || !maps.Equal(back, m) {
			t.Fatalf("round trip: %v, %v; want %v", back, err, m)
		}
		if len(m) > 0 {
			if _, err := ParseCounters([]byte(string(data) + "\n" + formatCounters(m))); err == nil {
				t.Fatal("the same counters twice were accepted")
			}
		}
	})
}
