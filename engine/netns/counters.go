package netns

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseCounters parses the kernel's SNMP and netstat counters as they appear
// in /proc/net/snmp, /proc/net/netstat and /proc/net/snmp6, or in any
// concatenation of those files, into a map keyed the way nstat names them:
// "TcpExtTCPFastOpenActive", "TcpActiveOpens", "UdpInDatagrams",
// "Ip6InReceives".
//
// snmp and netstat come in pairs of lines that start with the same prefix,
// the first naming the counters and the second giving their values:
//
//	TcpExt: SyncookiesSent TCPFastOpenActive
//	TcpExt: 0 12
//
// snmp6 has one "name value" pair per line. Negative values are skipped:
// the kernel prints only one, Tcp MaxConn = -1, which is a constant rather
// than a counter. Blank lines are ignored; anything else malformed (a header
// with no value line, a count mismatch, a name containing ':', a value that
// is not a number, a name seen twice) is an error.
func ParseCounters(data []byte) (map[string]uint64, error) {
	m := make(map[string]uint64)
	if err := parseCountersInto(m, data); err != nil {
		return nil, err
	}
	return m, nil
}

// parseCountersInto adds the counters in data to m; see ParseCounters.
func parseCountersInto(m map[string]uint64, data []byte) error {
	var (
		prefix  string   // prefix of the pending header line, if any
		names   []string // counter names of the pending header line
		pending bool
		headAt  int // line number of the pending header line
	)
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		f := strings.Fields(string(line))
		if len(f) == 0 {
			continue
		}
		if !strings.HasSuffix(f[0], ":") {
			// snmp6 style: "Ip6InReceives 123".
			if pending {
				return parseErr(headAt, "%s: header line has no value line", prefix)
			}
			if len(f) != 2 {
				return parseErr(n, "want \"Prefix: ...\" or \"name value\", got %d fields", len(f))
			}
			if err := addCounter(m, f[0], f[1]); err != nil {
				return parseErr(n, "%v", err)
			}
			continue
		}
		p := strings.TrimSuffix(f[0], ":")
		if p == "" || strings.Contains(p, ":") {
			return parseErr(n, "bad prefix %q", f[0])
		}
		if !pending || p != prefix {
			if pending {
				return parseErr(headAt, "%s: header line has no value line", prefix)
			}
			prefix, names, pending, headAt = p, f[1:], true, n
			continue
		}
		vals := f[1:]
		if len(vals) != len(names) {
			return parseErr(n, "%s: %d names but %d values", prefix, len(names), len(vals))
		}
		for j, name := range names {
			if err := addCounter(m, prefix+name, vals[j]); err != nil {
				return parseErr(n, "%v", err)
			}
		}
		pending = false
	}
	if pending {
		return parseErr(headAt, "%s: header line has no value line", prefix)
	}
	return nil
}

// addCounter stores m[key] = value, refusing malformed keys and values and
// keys already present. Negative values are skipped (see ParseCounters).
func addCounter(m map[string]uint64, key, value string) error {
	if strings.Contains(key, ":") {
		return fmt.Errorf("counter name %q contains ':'", key)
	}
	if _, dup := m[key]; dup {
		return fmt.Errorf("counter %s appears twice", key)
	}
	v, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		if neg, err2 := strconv.ParseInt(value, 10, 64); err2 == nil && neg < 0 {
			return nil
		}
		return fmt.Errorf("counter %s: value %q is not a number", key, value)
	}
	m[key] = v
	return nil
}

func parseErr(line int, format string, args ...any) error {
	return fmt.Errorf("netns: parse counters: line %d: %s", line, fmt.Sprintf(format, args...))
}
