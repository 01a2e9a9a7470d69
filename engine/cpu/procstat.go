package cpu

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// maxCPUs bounds the CPU numbers this package accepts from /proc, /sys and
// users. Linux's NR_CPUS is at most 8192 today; the margin keeps a hostile or
// corrupt input from making us allocate without limit.
const maxCPUs = 1 << 16

// Times holds one CPU's cumulative counters from a /proc/stat "cpu" line, in
// clock ticks (USER_HZ, normally 1/100 s). Guest and GuestNice are already
// included in User and Nice by the kernel. Older kernels print fewer columns;
// the missing ones are zero.
type Times struct {
	User      uint64
	Nice      uint64
	System    uint64
	Idle      uint64
	IOWait    uint64
	IRQ       uint64
	SoftIRQ   uint64
	Steal     uint64
	Guest     uint64
	GuestNice uint64
}

// fieldName names column i (0-based) of a /proc/stat cpu line, for error
// messages.
func fieldName(i int) string {
	names := [...]string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"}
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return "extra column"
}

// set stores column i (0-based, in /proc/stat order) of a cpu line.
func (t *Times) set(i int, v uint64) {
	switch i {
	case 0:
		t.User = v
	case 1:
		t.Nice = v
	case 2:
		t.System = v
	case 3:
		t.Idle = v
	case 4:
		t.IOWait = v
	case 5:
		t.IRQ = v
	case 6:
		t.SoftIRQ = v
	case 7:
		t.Steal = v
	case 8:
		t.Guest = v
	case 9:
		t.GuestNice = v
	}
}

// CPUTimes is the counters of one numbered CPU (the "cpuN" line).
type CPUTimes struct {
	CPU int // the N of "cpuN"
	Times
}

// Snapshot is one reading of the per-CPU counters in /proc/stat: the input to
// [SystemUtilization]. Offline CPUs do not appear in /proc/stat, so the CPU
// numbers need not be contiguous.
type Snapshot struct {
	// CPUs holds one entry per "cpuN" line, sorted by CPU number.
	CPUs []CPUTimes
}

// ParseProcStat parses the text of /proc/stat into a Snapshot.
//
// It reads the per-CPU "cpuN" lines and checks the aggregate "cpu" line for
// form but does not keep it (netperf skips it too). Each cpu line must carry
// at least the four counters of the oldest kernels and every counter must be
// an unsigned decimal that fits in 64 bits; columns beyond the ten known ones
// must be numeric too and are ignored. Other lines (intr, ctxt, btime, ...)
// are skipped so that new kernel keys do not break parsing, but each line must
// start with a lower-case name, and at least one cpuN line must be present.
// Anything else is an error naming the line; the parser never panics.
func ParseProcStat(data []byte) (Snapshot, error) {
	var s Snapshot
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		fields := bytes.Fields(line)
		if len(fields) == 0 {
			continue
		}
		key := fields[0]
		if !isKey(key) {
			return Snapshot{}, lineError(lineNo, line, errors.New("does not start with a lower-case name"))
		}
		rest, isCPU := bytes.CutPrefix(key, []byte("cpu"))
		if !isCPU || (len(rest) > 0 && !isDigit(rest[0])) {
			continue // some other key: intr, ctxt, btime, a future one
		}
		id := -1
		if len(rest) > 0 {
			n, err := strconv.ParseUint(string(rest), 10, 32)
			if err != nil || n >= maxCPUs {
				return Snapshot{}, lineError(lineNo, line, fmt.Errorf("bad CPU name %q (want cpu0 to cpu%d)", key, maxCPUs-1))
			}
			id = int(n)
		}
		t, err := parseTimes(string(key), fields[1:])
		if err != nil {
			return Snapshot{}, lineError(lineNo, line, err)
		}
		if id >= 0 {
			s.CPUs = append(s.CPUs, CPUTimes{CPU: id, Times: t})
		}
	}
	if len(s.CPUs) == 0 {
		return Snapshot{}, errors.New("cpu: parse /proc/stat: no per-CPU (cpuN) lines")
	}
	slices.SortStableFunc(s.CPUs, func(a, b CPUTimes) int { return a.CPU - b.CPU })
	for i := 1; i < len(s.CPUs); i++ {
		if s.CPUs[i].CPU == s.CPUs[i-1].CPU {
			return Snapshot{}, fmt.Errorf("cpu: parse /proc/stat: cpu%d appears more than once", s.CPUs[i].CPU)
		}
	}
	return s, nil
}

// parseTimes parses the counters that follow a cpu key.
func parseTimes(key string, vals [][]byte) (Times, error) {
	var t Times
	if len(vals) < 4 {
		return t, fmt.Errorf("%s has %d counters, want at least 4 (user nice system idle)", key, len(vals))
	}
	for i, f := range vals {
		v, err := strconv.ParseUint(string(f), 10, 64)
		if err != nil {
			return t, fmt.Errorf("%s counter %d (%s): %w", key, i+1, fieldName(i), err)
		}
		t.set(i, v)
	}
	return t, nil
}

// lineError wraps err with the line number and a short quote of the line.
func lineError(lineNo int, line []byte, err error) error {
	const maxQuote = 48
	q := line
	if len(q) > maxQuote {
		q = q[:maxQuote]
	}
	more := ""
	if len(line) > maxQuote {
		more = "..."
	}
	return fmt.Errorf("cpu: parse /proc/stat: line %d (%q%s): %w", lineNo, q, more, err)
}

// isKey reports whether b looks like a /proc/stat key: [a-z][a-z0-9_]*.
func isKey(b []byte) bool {
	if len(b) == 0 || b[0] < 'a' || b[0] > 'z' {
		return false
	}
	for _, c := range b[1:] {
		if !(c >= 'a' && c <= 'z' || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
