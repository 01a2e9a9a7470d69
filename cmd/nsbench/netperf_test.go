package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParseNetperf: the figure is read from netperf's -k lines, or from
// TCP_CC's classic layout, whatever else netperf printed around it; no
// figure, or one that is no number, is an error.
func TestParseNetperf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		out     string
		classic bool
		v       float64
		units   string
		err     string // "" for none
	}{
		// -P 0 -- -k THROUGHPUT,THROUGHPUT_UNITS of an RR test.
		{"rr", "THROUGHPUT=6026.58\nTHROUGHPUT_UNITS=Trans/s\n", false, 6026.58, "Trans/s", ""},
		// A stream, with the banner -P 0 would have left out and more keys.
		{"stream", "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET\nTHROUGHPUT=26499.18\nTHROUGHPUT_UNITS=10^6bits/s\nLOCAL_SEND_SIZE=16384\n", false, 26499.18, "10^6bits/s", ""},
		// Order does not matter, nor spaces around the lines.
		{"units first", "  THROUGHPUT_UNITS=Trans/s\r\n  THROUGHPUT=1.5  \n", false, 1.5, "Trans/s", ""},
		// Units missing: the figure with no units (the caller refuses it).
		{"no units", "THROUGHPUT=12\n", false, 12, "", ""},
		// TCP_CC with -P 0: the rate is the sixth column of the first line.
		{"classic", "16384  131072 1        1       1.00     4098.15   \n16384  131072\n", true, 4098.15, "Trans/s", ""},
		// A classic layout with its headers (no -P 0) still finds the figures.
		{"classic headers", "Local /Remote\nSocket Size   Request  Resp.   Elapsed  Trans.\nbytes  Bytes  bytes    bytes   secs.    per sec\n\n16384  131072 1        1       1.00     30051.08\n", true, 30051.08, "Trans/s", ""},
		{"classic nothing", "netperf: send_tcp_cc: data socket connect failed\n", true, 0, "", "no figure"},
		{"empty", "", false, 0, "", "no figure"},
		{"not a number", "THROUGHPUT=nan-ish\nTHROUGHPUT_UNITS=Trans/s\n", false, 0, "", "not a number"},
		// A -o line (CSV) is not what is asked for.
		{"csv", "6026.58,Trans/s\n", false, 0, "", "no figure"},
	} {
		v, units, err := parseNetperf([]byte(tc.out), tc.classic)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case v != tc.v || units != tc.units:
			t.Errorf("%s: %v %q, want %v %q", tc.name, v, units, tc.v, tc.units)
		}
	}
}

// TestParseNetscript: netscriptCode's script prints a figure and its
// units; anything else is an error.
func TestParseNetscript(t *testing.T) {
	for _, tc := range []struct {
		out   string
		v     float64
		units string
		ok    bool
	}{
		{"100452.0 Trans/s\n", 100452, "Trans/s", true},
		{"26499.18 10^6bits/s\n", 26499.18, "10^6bits/s", true},
		{"100452.0\n", 0, "", false},                   // no units
		{"Trans/s 100452.0\n", 0, "", false},           // the wrong way round
		{"1 Trans/s\n2 Trans/s\n", 0, "", false},       // two results
		{"", 0, "", false},                             // nothing
		{"warning: x\n1 Trans/s\n", 0, "", false},      // more than the result
		{"  7e3   Trans/s  \n", 7000, "Trans/s", true}, // spaces
	} {
		v, units, err := parseNetscript([]byte(tc.out))
		if (err == nil) != tc.ok || v != tc.v || units != tc.units {
			t.Errorf("parseNetscript(%q) = %v %q %v, want %v %q ok=%v", tc.out, v, units, err, tc.v, tc.units, tc.ok)
		}
	}
}

// row returns the netperf table's row name.
func row(t *testing.T, name string) npRow {
	t.Helper()
	for _, r := range npRows {
		if r.name == name {
			return r
		}
	}
	t.Fatalf("no row %s", name)
	return npRow{}
}

// TestNetperfArgs: netperf's command line for each kind of row; -k only
// for the omni tests (netperf refuses it for TCP_CC).
func TestNetperfArgs(t *testing.T) {
	for _, tc := range []struct {
		row  string
		port int
		secs int
		want string
	}{
		{"tcp_rr", 12865, 3, "-H 127.0.0.1 -p 12865 -t TCP_RR -l 3 -P 0 -- -D -k THROUGHPUT,THROUGHPUT_UNITS"},
		{"udp_rr", 1, 1, "-H 127.0.0.1 -p 1 -t UDP_RR -l 1 -P 0 -- -e 1 -k THROUGHPUT,THROUGHPUT_UNITS"},
		{"tcp_maerts", 40000, 2, "-H 127.0.0.1 -p 40000 -t TCP_MAERTS -l 2 -P 0 -- -m 16384 -D -k THROUGHPUT,THROUGHPUT_UNITS"},
		{"udp_stream", 40000, 2, "-H 127.0.0.1 -p 40000 -t UDP_STREAM -l 2 -P 0 -- -m 1472 -k THROUGHPUT,THROUGHPUT_UNITS"},
		{"tcp_cc", 40000, 5, "-H 127.0.0.1 -p 40000 -t TCP_CC -l 5 -P 0 -- -D"},
	} {
		if got := strings.Join(netperfArgs(row(t, tc.row), tc.port, tc.secs), " "); got != tc.want {
			t.Errorf("%s: %s\nwant %s", tc.row, got, tc.want)
		}
	}
}

// TestNetscriptCode: the script of a B cell and of a D cell differ only
// in server=.
func TestNetscriptCode(t *testing.T) {
	for _, tc := range []struct {
		row, server string
		want        string
	}{
		{"tcp_rr", "", "r = tcp_rr(host='127.0.0.1', port=5000, duration=3, nodelay=True)\nprint(r.throughput, r.units)"},
		{"tcp_rr", "netserver", "r = tcp_rr(host='127.0.0.1', port=5000, duration=3, nodelay=True, server=\"netserver\")\nprint(r.throughput, r.units)"},
		{"udp_stream", "netserver", "r = udp_stream(host='127.0.0.1', port=5000, duration=3, send_size=1472, server=\"netserver\")\nprint(r.throughput, r.units)"},
	} {
		if got := netscriptCode(row(t, tc.row), 5000, 3, tc.server); got != tc.want {
			t.Errorf("%s %q:\n%s\nwant\n%s", tc.row, tc.server, got, tc.want)
		}
	}
}

// TestNpSeconds: netperf's -l is whole seconds, rounded up, at least 1.
func TestNpSeconds(t *testing.T) {
	for secs, want := range map[float64]int{3: 3, 1: 1, 0.5: 1, 0.001: 1, 2.2: 3, 10: 10, 2.0000000001: 2} {
		if got := npSeconds(secs); got != want {
			t.Errorf("npSeconds(%g) = %d, want %d", secs, got, want)
		}
	}
}

// TestRotation: over any four rounds each cell runs first once and in
// each position once, every round runs all four, and the two cells of
// each printed ratio run one after the other in three rounds of four.
func TestRotation(t *testing.T) {
	const a, b, c, d = 0, 1, 2, 3
	for base := 0; base < 3; base++ {
		var pos [4][4]int // cell, position: count
		adjacent := map[string]int{}
		for r := base; r < base+4; r++ {
			o := rotation(r)
			s := slices.Clone(o[:])
			slices.Sort(s)
			if !slices.Equal(s, []int{a, b, c, d}) {
				t.Fatalf("rotation(%d) = %v: not every cell once", r, o)
			}
			at := map[int]int{}
			for i, k := range o {
				pos[k][i]++
				at[k] = i
			}
			for name, p := range map[string][2]int{"C/A": {c, a}, "D/B": {d, b}, "B/A": {b, a}} {
				if diff := at[p[0]] - at[p[1]]; diff == 1 || diff == -1 {
					adjacent[name]++
				}
			}
		}
		for k := range pos {
			for i := range pos[k] {
				if pos[k][i] != 1 {
					t.Errorf("rounds %d-%d: cell %s in position %d %d times", base, base+3, npCells[k], i, pos[k][i])
				}
			}
		}
		for _, name := range []string{"C/A", "D/B", "B/A"} {
			if adjacent[name] != 3 {
				t.Errorf("rounds %d-%d: the cells of %s adjacent in %d rounds, want 3", base, base+3, name, adjacent[name])
			}
		}
	}
	if o := rotation(0); o != [4]int{a, c, d, b} {
		t.Errorf("rotation(0) = %v, want A C D B", o)
	}
}

// TestCheckNetperfRows: -netperf-rows takes the table's rows only, and
// -only takes the table's name.
func TestCheckNetperfRows(t *testing.T) {
	for _, tc := range []struct {
		list string
		want string // "" for accepted
	}{
		{"", ""},
		{"tcp_rr", ""},
		{"tcp_rr,tcp_crr,udp_rr,tcp_stream,tcp_maerts,udp_stream,tcp_cc", ""},
		{"udp_stream", ""}, // not in the main table, in this one
		{"flows", `no row "flows"`},
		{"TCP_RR", `no row "TCP_RR"`},
		{"tcp_rr,", `no row ""`},
	} {
		err := checkNetperfRows(tc.list)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkNetperfRows(%q) = %v", tc.list, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("checkNetperfRows(%q) = %v, want %q", tc.list, err, tc.want)
		}
	}
	if err := checkArgs("netperf", 2, 1); err != nil {
		t.Errorf("checkArgs(netperf): %v", err)
	}
	if err := checkArgs("netperf,tcp_rr", 2, 1); err != nil {
		t.Errorf("checkArgs(netperf,tcp_rr): %v", err)
	}
	if mainRows("netperf") {
		t.Errorf("mainRows(netperf): the main table would print its header for no row")
	}
}

// TestDetection: what serve -h and a failed probe say about the two
// capabilities.
func TestDetection(t *testing.T) {
	for usage, want := range map[string]bool{
		"  -listen value\n    \tcontrol address to listen on\n":                             false,
		"  -netperf-listen value\n    \tanswer netperf clients at ADDR:PORT (repeatable)\n": true,
		"usage: netscript serve [--listen ADDR:PORT ...] [--netperf-listen ADDR:PORT ...]":  true,
		"": false,
	} {
		if got := hasNetperfListen([]byte(usage)); got != want {
			t.Errorf("hasNetperfListen(%q) = %v, want %v", usage, got, want)
		}
	}
	for out, want := range map[string]bool{
		"netscript: <command-line>:1:5: tcp_rr: unknown option server; tcp_rr takes: brand, burst": true,
		"netscript: tcp_rr: connect 127.0.0.1:1: connection refused":                               false,
		"": false,
	} {
		if got := noServerOption(out); got != want {
			t.Errorf("noServerOption(%q) = %v, want %v", out, got, want)
		}
	}
}

// TestFindNetperf: -netperf DIR is taken as given; by default the folder
// is found beside the project root, from the working directory or from
// the binary's; anywhere else it is missing, with why.
func TestFindNetperf(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "wt")
	np := filepath.Join(top, "shared", "peers", "netperf-2.7.1")
	for _, d := range []string{filepath.Join(root, "cmd", "nsbench"), filepath.Join(root, "bin"), np, filepath.Join(top, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "go.mod"), 0o644)
	write(filepath.Join(np, "netperf"), 0o755)
	write(filepath.Join(np, "netserver"), 0o755)
	half := filepath.Join(top, "half")
	os.MkdirAll(half, 0o755)
	write(filepath.Join(half, "netperf"), 0o755)
	write(filepath.Join(half, "netserver"), 0o644) // not executable

	exe := filepath.Join(root, "bin", "nsbench")
	away := filepath.Join(top, "elsewhere")
	for _, tc := range []struct {
		name, dir, cwd, exe string
		want                string // the folder, or "" for none
		why                 string // in the reason when none
	}{
		{"given", np, away, "", np, ""},
		{"given missing", filepath.Join(top, "nope"), root, exe, "", "no such file"},
		{"given not executable", half, root, exe, "", "netserver is not executable"},
		{"from the root", "", root, "", np, ""},
		{"from below the root", "", filepath.Join(root, "cmd", "nsbench"), "", np, ""},
		{"from the binary", "", away, exe, np, ""},
		{"nowhere", "", away, filepath.Join(away, "nsbench"), "", "no project root"},
	} {
		got, why := findNetperf(tc.dir, tc.cwd, tc.exe)
		want := tc.want
		if want != "" {
			want = filepath.Clean(want)
		}
		if filepath.Clean(got) != want && !(got == "" && want == "") {
			t.Errorf("%s: %q (%s), want %q", tc.name, got, why, want)
		}
		if tc.why != "" && !strings.Contains(why, tc.why) {
			t.Errorf("%s: why %q, want %q", tc.name, why, tc.why)
		}
	}
}

// TestRatios: ratios and their medians leave out the rounds a cell
// missed, and the target ratios outside 0.98-1.02 are marked.
func TestRatios(t *testing.T) {
	nan := math.NaN()
	q := ratios([]float64{99, nan, 102, 0}, []float64{100, 100, 100, 0})
	if q[0] != 0.99 || !math.IsNaN(q[1]) || q[2] != 1.02 || !math.IsNaN(q[3]) {
		t.Errorf("ratios = %v", q)
	}
	for _, tc := range []struct {
		q      []float64
		target bool
		want   string
	}{
		{[]float64{0.99, 1.0, 1.01}, true, "1.000"},
		{[]float64{0.97, 0.976, nan}, true, "0.973!"},
		{[]float64{1.03}, true, "1.030!"},
		{[]float64{1.03}, false, "1.030"}, // B/A: no target
		{[]float64{0.98}, true, "0.980"},  // the bounds are inside
		{[]float64{nan, nan}, true, "-"},
		{nil, true, "-"},
	} {
		if got := fmtRatio(tc.q, tc.target); got != tc.want {
			t.Errorf("fmtRatio(%v, %v) = %q, want %q", tc.q, tc.target, got, tc.want)
		}
	}
	if got := cellFigure([]float64{1, 2, nan}, ""); got != "1.50" {
		t.Errorf("cellFigure = %q", got)
	}
	if got := cellFigure([]float64{nan}, ""); got != "failed" {
		t.Errorf("cellFigure of failures = %q", got)
	}
	if got := cellFigure(nil, "no --netperf-listen"); got != "n/a" {
		t.Errorf("cellFigure n/a = %q", got)
	}
	if got := roundsLine([]string{"C/A", "B/A"}, [][]float64{{nan, nan}, {1, nan}}); got != "B/A: 1.000 -" {
		t.Errorf("roundsLine = %q", got)
	}
}

// TestFreePort: each base has its range free, below the ephemeral range
// when there is room, and no two ranges overlap.
func TestFreePort(t *testing.T) {
	elo, _, ok := ephemeralRange()
	var bases []int
	for range 20 {
		p := freePort()
		if ok && elo > 11000+serverPorts && p+serverPorts > elo {
			t.Errorf("freePort() = %d: its range meets the ephemeral ports from %d", p, elo)
		}
		for _, q := range bases {
			if p < q+serverPorts && q < p+serverPorts {
				t.Errorf("freePort() = %d overlaps %d", p, q)
			}
		}
		bases = append(bases, p)
	}
	for _, tc := range []struct {
		in     string
		lo, hi int
		ok     bool
	}{
		{"32768\t60999\n", 32768, 60999, true},
		{"1024 65535", 1024, 65535, true},
		{"60999 32768", 0, 0, false},
		{"32768", 0, 0, false},
		{"", 0, 0, false},
		{"a b", 0, 0, false},
	} {
		lo, hi, ok := parsePortRange(tc.in)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("parsePortRange(%q) = %d %d %v, want %d %d %v", tc.in, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}
