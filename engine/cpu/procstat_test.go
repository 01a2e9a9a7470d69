package cpu

import (
	"reflect"
	"strings"
	"testing"
)

// realStat is /proc/stat from a 2-CPU Linux 6.x machine (intr shortened).
const realStat = `cpu  1967 0 3007 51952 107 0 662 0 0 0
cpu0 829 0 1677 25988 6 0 363 0 0 0
cpu1 1138 0 1329 25963 101 0 299 0 0 0
intr 605263 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 8 0 0
ctxt 1768901
btime 1767000000
processes 4242
procs_running 2
procs_blocked 0
softirq 412345 0 123 4 5678 90 0 12 3456 0 7890
`

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []CPUTimes
		wantErr string // substring of the error; "" means success
	}{
		{
			// A real file with all ten columns.
			name: "real 2-CPU file",
			in:   realStat,
			want: []CPUTimes{
				{0, Times{User: 829, System: 1677, Idle: 25988, IOWait: 6, SoftIRQ: 363}},
				{1, Times{User: 1138, System: 1329, Idle: 25963, IOWait: 101, SoftIRQ: 299}},
			},
		},
		{
			// A VM host: guest and guest_nice non-zero, steal too.
			name: "guest columns",
			in:   "cpu  10 20 30 40 50 60 70 80 90 100\ncpu0 1 2 3 4 5 6 7 8 9 10\n",
			want: []CPUTimes{{0, Times{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}},
		},
		{
			// Linux 2.6.11 to 2.6.23: eight columns, no guest; the rest are zero.
			name: "eight columns, no guest",
			in:   "cpu 2 2 2 2 2 2 2 2\ncpu0 1 1 1 1 1 1 1 1\ncpu1 1 1 1 1 1 1 1 1\n",
			want: []CPUTimes{
				{0, Times{1, 1, 1, 1, 1, 1, 1, 1, 0, 0}},
				{1, Times{1, 1, 1, 1, 1, 1, 1, 1, 0, 0}},
			},
		},
		{
			// Linux 2.4: only user nice system idle.
			name: "four columns",
			in:   "cpu 1 2 3 4\ncpu0 1 2 3 4\n",
			want: []CPUTimes{{0, Times{User: 1, Nice: 2, System: 3, Idle: 4}}},
		},
		{
			// A hypothetical future kernel with an eleventh column: ignored.
			name: "extra numeric column",
			in:   "cpu0 1 2 3 4 5 6 7 8 9 10 11\n",
			want: []CPUTimes{{0, Times{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}},
		},
		{
			// CPU 1 offline: /proc/stat omits it; numbering has a gap.
			name: "offline CPU gap",
			in:   "cpu 2 0 0 2 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu2 1 0 0 1 0 0 0 0 0 0\n",
			want: []CPUTimes{{0, Times{User: 1, Idle: 1}}, {2, Times{User: 1, Idle: 1}}},
		},
		{
			// No aggregate line, no trailing newline, CRLF-free tabs: still fine.
			name: "missing aggregate line",
			in:   "cpu0\t5 0 5 90 0 0 0 0 0 0",
			want: []CPUTimes{{0, Times{User: 5, System: 5, Idle: 90}}},
		},
		{
			// Out-of-order lines are sorted.
			name: "unsorted CPUs",
			in:   "cpu1 1 0 0 1\ncpu0 2 0 0 2\n",
			want: []CPUTimes{{0, Times{User: 2, Idle: 2}}, {1, Times{User: 1, Idle: 1}}},
		},
		{
			// The largest counter that fits in 64 bits is accepted.
			name: "max uint64",
			in:   "cpu0 18446744073709551615 0 0 1\n",
			want: []CPUTimes{{0, Times{User: 18446744073709551615, Idle: 1}}},
		},
		{
			// Unknown lower-case keys are skipped for forward compatibility.
			name: "unknown key",
			in:   "cpu0 1 0 0 1\nnew_counter 7 8 9\n",
			want: []CPUTimes{{0, Times{User: 1, Idle: 1}}},
		},
		{
			// Empty input.
			name:    "empty",
			in:      "",
			wantErr: "no per-CPU (cpuN) lines",
		},
		{
			// Only the aggregate line: no per-CPU figures to average.
			name:    "aggregate only",
			in:      "cpu 1 2 3 4 5 6 7 8 9 10\nctxt 5\n",
			wantErr: "no per-CPU (cpuN) lines",
		},
		{
			// Missing cpu lines: a truncated read that kept only the tail.
			name:    "missing cpu lines",
			in:      "ctxt 1768901\nbtime 1767000000\n",
			wantErr: "no per-CPU (cpuN) lines",
		},
		{
			// Some other file read by mistake.
			name:    "garbage",
			in:      "Hello, world!\n",
			wantErr: "line 1",
		},
		{
			// Binary garbage.
			name:    "binary",
			in:      "\x00\x01\x02\xff",
			wantErr: "does not start with a lower-case name",
		},
		{
			// A negative counter.
			name:    "negative field",
			in:      "cpu0 1 -2 3 4\n",
			wantErr: "counter 2 (nice)",
		},
		{
			// A non-numeric counter.
			name:    "non-numeric field",
			in:      "cpu 1 2 3 4\ncpu0 1 2 x 4 5 6 7 8 9 10\n",
			wantErr: "line 2",
		},
		{
			// A number too large for 64 bits.
			name:    "huge number",
			in:      "cpu0 1 2 3 99999999999999999999999 0 0 0 0 0 0\n",
			wantErr: "counter 4 (idle)",
		},
		{
			// A non-numeric eleventh column.
			name:    "bad extra column",
			in:      "cpu0 1 2 3 4 5 6 7 8 9 10 zz\n",
			wantErr: "extra column",
		},
		{
			// Too few counters.
			name:    "three columns",
			in:      "cpu0 1 2 3\n",
			wantErr: "3 counters, want at least 4",
		},
		{
			// A cpu line with no counters at all.
			name:    "bare cpu key",
			in:      "cpu0\n",
			wantErr: "0 counters",
		},
		{
			// A malformed CPU name.
			name:    "bad cpu name",
			in:      "cpu1x 1 2 3 4\n",
			wantErr: "bad CPU name",
		},
		{
			// A CPU number beyond any real machine.
			name:    "cpu number too large",
			in:      "cpu99999999999 1 2 3 4\n",
			wantErr: "bad CPU name",
		},
		{
			// The same CPU twice.
			name:    "duplicate cpu",
			in:      "cpu0 1 2 3 4\ncpu0 1 2 3 4\n",
			wantErr: "cpu0 appears more than once",
		},
		{
			// A bad aggregate line is an error even though it is not kept.
			name:    "bad aggregate",
			in:      "cpu 1 2 three 4\ncpu0 1 2 3 4\n",
			wantErr: "counter 3 (system)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseProcStat([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseProcStat succeeded with %+v, want error containing %q", got, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "cpu: parse /proc/stat: ") {
					t.Fatalf("error %q, want prefix %q and %q in it", err, "cpu: parse /proc/stat: ", tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseProcStat: %v", err)
			}
			if !reflect.DeepEqual(got.CPUs, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got.CPUs, tc.want)
			}
		})
	}
}

// TestParseProcStatLongLine makes sure an intr line far longer than a
// bufio.Scanner's default limit (as on machines with many interrupts) parses.
func TestParseProcStatLongLine(t *testing.T) {
	in := "cpu0 1 0 0 1\nintr" + strings.Repeat(" 0", 200000) + "\n"
	s, err := ParseProcStat([]byte(in))
	if err != nil || len(s.CPUs) != 1 {
		t.Fatalf("ParseProcStat = %+v, %v; want one CPU", s, err)
	}
}

// TestParseProcStatErrorQuoteBounded checks that a huge bad line is not
// copied whole into the error message.
func TestParseProcStatErrorQuoteBounded(t *testing.T) {
	_, err := ParseProcStat([]byte("cpu0 x" + strings.Repeat(" 1", 100000)))
	if err == nil {
		t.Fatal("ParseProcStat succeeded on a bad line")
	}
	if len(err.Error()) > 300 {
		t.Fatalf("error %.100q... (length %d), want a short error", err, len(err.Error()))
	}
}
