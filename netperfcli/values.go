package netperfcli

import (
	"strconv"
	"strings"
)

// The value readers of netperf's command line (netsh.c, netlib.c), each
// doing what netperf's does with any input: none refuses, as netperf's
// never do (a word that is no number reads as 0).

// atoi is C's atoi: leading blanks, a sign, the digits that follow; 0 if
// there are none. Values past an int's range wrap as netperf's int does.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int64(s[i]-'0')
		if n > 1<<40 {
			n = 1 << 40 // strtol saturates; the int it becomes wraps below
		}
	}
	if neg {
		n = -n
	}
	return int(int32(n))
}

// atof is C's atof for the numbers netperf reads with it (-D, -c rate):
// the longest prefix that is a number; 0 if none.
func atof(s string) float64 {
	s = strings.TrimSpace(s)
	for end := len(s); end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f
		}
	}
	return 0
}

// convert is netperf's convert(): atoi, times 1024ⁿ for each of K, M, G
// and 1000ⁿ for each of k, m, g found anywhere in the word, in unsigned
// 32-bit arithmetic, as an int ("64K" is 65536, "1m" 1000000, "-1" -1).
func convert(s string) int {
	base := uint32(atoi(s))
	for _, m := range []struct {
		letter string
		by     uint32
	}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}} {
		if strings.Contains(s, m.letter) {
			base *= m.by
		}
	}
	return int(int32(base))
}

// convertTimespec is netperf's convert_timespec(): microseconds from a
// number of milliseconds, or of the unit an m, u or s in the word names
// (milliseconds when none does).
func convertTimespec(s string) int {
	base := uint32(atoi(s))
	switch {
	case strings.Contains(s, "m"):
		base *= 1000
	case strings.Contains(s, "u"):
	case strings.Contains(s, "s"):
		base *= 1000 * 1000
	default:
		base *= 1000
	}
	return int(int32(base))
}

// breakArgs is netperf's break_args: "a,b" gives both, "a," the first
// (and "" for the second), ",b" the second, a single value both.
func breakArgs(v string) (string, string) {
	if a, b, ok := strings.Cut(v, ","); ok {
		return a, b
	}
	return v, v
}

// breakArgsExplicit is break_args_explicit: as breakArgs, but a single
// value gives only the first.
func breakArgsExplicit(v string) (string, string) { return breakArgsSep(v, ',') }

// breakArgsSep is break_args_explicit_sep.
func breakArgsSep(v string, sep byte) (string, string) {
	if i := strings.IndexByte(v, sep); i >= 0 {
		return v[:i], v[i+1:]
	}
	return v, ""
}

// Address families as netperf keeps them.
const (
	afUnspec = 0
	afInet   = 2
	afInet6  = 10
)

// parseFamily is netperf's parse_address_family: a 6 anywhere is IPv6,
// inet or 4 IPv4, unspec or 0 either; anything else either, with a
// warning (warn is called with it).
func parseFamily(v string, warn func(string)) int {
	t := v
	if len(t) > 9 {
		t = t[:9] // netperf reads the first 9 characters
	}
	switch {
	case strings.Contains(t, "6"):
		return afInet6
	case strings.Contains(t, "inet"), strings.Contains(t, "4"):
		return afInet
	case strings.Contains(t, "unspec"), strings.Contains(t, "0"):
		return afUnspec
	}
	warn("WARNING! " + v + " not recognized as an address family, using AF_UNPSEC\n" +
		"Are you sure netperf was configured for that address family?\n")
	return afUnspec
}

// ipqos are the names -Y takes (netperf's dscp.c, after OpenSSH's).
var ipqos = []struct {
	name  string
	value int
}{
	{"af11", 0x28}, {"af12", 0x30}, {"af13", 0x38},
	{"af21", 0x48}, {"af22", 0x50}, {"af23", 0x58},
	{"af31", 0x68}, {"af32", 0x70}, {"af33", 0x78},
	{"af41", 0x88}, {"af42", 0x90}, {"af43", 0x98},
	{"cs0", 0x00}, {"cs1", 0x20}, {"cs2", 0x40}, {"cs3", 0x60},
	{"cs4", 0x80}, {"cs5", 0xa0}, {"cs6", 0xc0}, {"cs7", 0xe0},
	{"ef", 0xb8},
	{"lowdelay", 0x10}, {"throughput", 0x08}, {"reliability", 0x04},
}

// parseIPQoS is netperf's parse_ipqos: a name of ipqos (any case) or a
// number 0-255 in C's notation (0xb8, 070, 184); -1 otherwise.
func parseIPQoS(v string) int {
	for _, q := range ipqos {
		if strings.EqualFold(v, q.name) {
			return q.value
		}
	}
	if v == "" {
		return -1
	}
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil || n < 0 || n > 255 {
		return -1
	}
	return int(n)
}

// parseDirection is netperf's parse_direction: words joined by '|'
// (send, xmit, stream, transmit; recv, receive, maerts; rr) or numbers
// in C's notation (2 transmit, 4 receive), or'ed.
func parseDirection(v string) int {
	if v == "" {
		return 0
	}
	a, rest := breakArgsSep(v, '|')
	d := parseDirection(rest)
	switch strings.ToLower(a) {
	case "":
	case "xmit", "send", "stream", "transmit":
		d |= dirXmit
	case "recv", "receive", "maerts":
		d |= dirRecv
	case "rr":
		d |= dirXmit | dirRecv
	default:
		d |= strtol0(a)
	}
	return d
}

// strtol0 is strtol(s, NULL, 0): a number in C's notation, its longest
// valid prefix; 0 if none.
func strtol0(s string) int {
	s = strings.TrimSpace(s)
	base, digits := 10, "0123456789"
	switch {
	case strings.HasPrefix(strings.ToLower(s), "0x"):
		base, digits, s = 16, "0123456789abcdef", s[2:]
	case strings.HasPrefix(s, "0"):
		base, digits = 8, "01234567"
	}
	n := 0
	for _, r := range strings.ToLower(s) {
		i := strings.IndexRune(digits, r)
		if i < 0 {
			break
		}
		n = n*base + i
	}
	return int(int32(n))
}

// parseSocketType is netperf's parse_socket_type.
func parseSocketType(v string) string {
	t := trunc(v, 10)
	switch {
	case strings.Contains(t, "stream"):
		return "Stream"
	case strings.Contains(t, "dgram"):
		return "Datagram"
	}
	return "Unknown"
}

// parseProtocol is netperf's parse_protocol: tcp, udp, and the others
// Linux knows (which netscript does not run).
func parseProtocol(v string) (int, string) {
	switch strings.ToLower(trunc(v, 9)) {
	case "tcp":
		return protoTCP, ""
	case "udp":
		return protoUDP, ""
	case "sctp":
		return 132, "SCTP"
	case "sdp":
		return 257, "SDP"
	case "dccp":
		return 33, "DCCP"
	case "udplite":
		return 136, "UDPLite"
	}
	return 0, "IP Default"
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
