package cpu

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseCPUList parses a Linux CPU list such as "0-3,8,10-11" (the form of
// /sys/devices/system/cpu/online and of Cpus_allowed_list in
// /proc/<pid>/status) into sorted, distinct CPU numbers. Surrounding white
// space is ignored; an empty list, a reversed range, the stride form
// "0-7:2", or a CPU number of 65536 or more is an error.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("cpu: parse CPU list: empty")
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := parseCPUNumber(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu: parse CPU list %q: %w", s, err)
		}
		last := first
		if isRange {
			if last, err = parseCPUNumber(hi); err != nil {
				return nil, fmt.Errorf("cpu: parse CPU list %q: %w", s, err)
			}
			if last < first {
				return nil, fmt.Errorf("cpu: parse CPU list %q: range %q runs backwards", s, part)
			}
		}
		if len(cpus)+last-first+1 > maxCPUs {
			return nil, fmt.Errorf("cpu: parse CPU list %q: more than %d CPUs", s, maxCPUs)
		}
		for c := first; c <= last; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// parseCPUNumber parses one CPU number of a list.
func parseCPUNumber(s string) (int, error) {
	if s == "" {
		return 0, errors.New("missing CPU number")
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, fmt.Errorf("%q is not a CPU number", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n >= maxCPUs {
		return 0, fmt.Errorf("CPU number %s is out of range (0 to %d)", s, maxCPUs-1)
	}
	return n, nil
}

// FormatCPUList writes CPU numbers in the compact Linux list form, e.g.
// []int{0, 1, 2, 4} as "0-2,4", for messages and reports. The input need not
// be sorted; duplicates are dropped; an empty list gives "".
func FormatCPUList(cpus []int) string {
	c := slices.Clone(cpus)
	slices.Sort(c)
	c = slices.Compact(c)
	var b strings.Builder
	for i := 0; i < len(c); {
		j := i
		for j+1 < len(c) && c[j+1] == c[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(c[j]))
		}
		i = j + 1
	}
	return b.String()
}
