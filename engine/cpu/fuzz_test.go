package cpu

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// formatProcStat writes s back in /proc/stat form with all ten columns.
func formatProcStat(s Snapshot) string {
	var b strings.Builder
	for _, c := range s.CPUs {
		t := c.Times
		fmt.Fprintf(&b, "cpu%d %d %d %d %d %d %d %d %d %d %d\n", c.CPU,
			t.User, t.Nice, t.System, t.Idle, t.IOWait, t.IRQ, t.SoftIRQ, t.Steal, t.Guest, t.GuestNice)
	}
	return b.String()
}

// FuzzParseProcStat feeds arbitrary bytes to the parser (seeds in
// testdata/fuzz/FuzzParseProcStat). It must never panic; whatever it accepts
// must be sorted, distinct and in range, must survive a format-and-parse
// round trip, and must give sane utilisation figures.
func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte(realStat))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseProcStat(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "cpu: parse /proc/stat: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		if len(s.CPUs) == 0 {
			t.Fatal("success with no CPUs")
		}
		for i, c := range s.CPUs {
			if c.CPU < 0 || c.CPU >= maxCPUs || (i > 0 && c.CPU <= s.CPUs[i-1].CPU) {
				t.Fatalf("CPU numbers not sorted, distinct and in range: %+v", s.CPUs)
			}
		}
		back, err := ParseProcStat([]byte(formatProcStat(s)))
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("round trip: %+v, %v; want %+v", back, err, s)
		}
		if _, err := SystemUtilization(s, s); err == nil {
			t.Fatal("the same snapshot twice gave a utilisation")
		}
		later := Snapshot{CPUs: slices.Clone(s.CPUs)}
		for i := range later.CPUs {
			later.CPUs[i].User += 3 // may wrap: that counts as going backwards
			later.CPUs[i].Idle += 1
		}
		if u, err := SystemUtilization(s, later); err == nil {
			if u.Percent < 0 || u.Percent > 100 || u.NumCPU < 1 {
				t.Fatalf("utilisation out of range: %+v", u)
			}
		}
	})
}

// FuzzParseCPUList feeds arbitrary text to the CPU-list parser. It must never
// panic, and what it accepts must be sorted, distinct, in range and survive
// a FormatCPUList round trip.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-1\n", "0-1,4", "0-2,4-5,8", "", "1-0", "0-7:2", "65535", "0-65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		for i, c := range cpus {
			if c < 0 || c >= maxCPUs || (i > 0 && c <= cpus[i-1]) {
				t.Fatalf("ParseCPUList(%q) = %v: not sorted, distinct and in range", s, cpus)
			}
		}
		back, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(back, cpus) {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}
