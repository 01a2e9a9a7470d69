package main

import (
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The netperf table (issue 15): for every row, the four pairs of netperf
// 2.7.1 and netscript at both ends, alternating round by round:
//
//	A  netperf   -> netserver
//	B  netscript -> netscript serve (a daemon, as netserver is)
//	C  netperf   -> netscript serve --netperf-listen
//	D  netscript -> netserver       (the workload's server="netserver")
//
// C/A says whether netscript serve is, to netperf, the netserver it
// replaces, and D/B whether netscript's client measures a netserver as it
// measures its own daemon: the far end must not change the figure, so both
// must land within npLow to npHigh. B/A, netscript over netperf, is for
// interest. Both servers run on CPU 0 and every client on CPU 0 ("same") or
// CPU 1 ("diff"), all pinned with taskset as the pingpong table pins its
// pairs: netperf's own -T would ask the far end to bind itself, which
// netserver and netscript serve might not do alike, and the far end's
// placement must be the same in A as in C.

// The range C/A and D/B must land in.
const npLow, npHigh = 0.98, 1.02

// npRow is one row of the netperf table: the same test for both clients.
type npRow struct {
	name  string   // netscript's builtin
	test  string   // netperf's -t
	extra string   // netscript's options beyond host, port and duration
	args  []string // netperf's test-specific options (after --)
	units string   // what both print: "Trans/s" or "10^6bits/s"
	// classic: netperf has no omni version of the test (TCP_CC) and so
	// no -k; it prints its classic layout, the rate in the sixth column.
	classic bool
}

// npRows are the rows, with the main table's options (nodelay on every
// TCP row, 16384-byte stream sends) given to both clients.
var npRows = []npRow{
	{name: "tcp_rr", test: "TCP_RR", extra: ", nodelay=True", args: []string{"-D"}, units: "Trans/s"},
	{name: "tcp_crr", test: "TCP_CRR", extra: ", nodelay=True", args: []string{"-D"}, units: "Trans/s"},
	// -e 1: a lost datagram costs netperf a second and then it goes on,
	// as netscript's udp_rr does by default (timeout=1s); without it
	// netperf waits for the lost answer until the end of the test.
	{name: "udp_rr", test: "UDP_RR", args: []string{"-e", "1"}, units: "Trans/s"},
	{name: "tcp_stream", test: "TCP_STREAM", extra: ", send_size=16384, nodelay=True", args: []string{"-m", "16384", "-D"}, units: "10^6bits/s"},
	// -m is the remote's send size too here (REMOTE_SEND_SIZE=16384).
	{name: "tcp_maerts", test: "TCP_MAERTS", extra: ", send_size=16384, nodelay=True", args: []string{"-m", "16384", "-D"}, units: "10^6bits/s"},
	// Both count what the receiver got. At the default 65507 bytes
	// loopback drops about half of what is sent, and that share swings
	// from run to run; 1472 (an Ethernet frame's worth) drops less.
	{name: "udp_stream", test: "UDP_STREAM", extra: ", send_size=1472", args: []string{"-m", "1472"}, units: "10^6bits/s"},
	{name: "tcp_cc", test: "TCP_CC", extra: ", nodelay=True", args: []string{"-D"}, units: "Trans/s", classic: true},
}

// netperfRow names the netperf table in -only.
const netperfRow = "netperf"

// netperfDirName is where the project keeps netperf, from its root.
const netperfDirName = "../shared/peers/netperf-2.7.1"

// npCells names the four cells, in the order of the table's columns.
var npCells = [4]string{"A", "B", "C", "D"}

// netperfArgs is netperf's command line for one run of row against
// 127.0.0.1:port for secs whole seconds (netperf's -l takes no fraction).
func netperfArgs(row npRow, port, secs int) []string {
	args := []string{"-H", "127.0.0.1", "-p", strconv.Itoa(port), "-t", row.test, "-l", strconv.Itoa(secs), "-P", "0", "--"}
	args = append(args, row.args...)
	if !row.classic {
		args = append(args, "-k", "THROUGHPUT,THROUGHPUT_UNITS")
	}
	return args
}

// netscriptCode is the script of one netscript run of row against
// 127.0.0.1:port; server is "" (netscript's own daemon) or "netserver".
func netscriptCode(row npRow, port int, secs float64, server string) string {
	opt := row.extra
	if server != "" {
		opt += fmt.Sprintf(", server=%q", server)
	}
	return fmt.Sprintf("r = %s(host='127.0.0.1', port=%d, duration=%g%s)\nprint(r.throughput, r.units)", row.name, port, secs, opt)
}

// npSeconds is the length of every run of the netperf table: -seconds
// rounded up to whole seconds, netperf's -l being an integer, and the
// netscript runs as long so that all four cells measure alike.
func npSeconds(secs float64) int {
	return max(1, int(math.Ceil(secs-1e-9)))
}

// parseNetperf reads the figure netperf printed: the THROUGHPUT and
// THROUGHPUT_UNITS lines of -k, or for a classic test (TCP_CC, with -P 0)
// the rate in the sixth column of its first line of figures, in Trans/s.
func parseNetperf(out []byte, classic bool) (float64, string, error) {
	var v float64
	var units string
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if classic {
			f := strings.Fields(line)
			if len(f) < 6 || !allNumbers(f) {
				continue
			}
			x, _ := strconv.ParseFloat(f[5], 64)
			return x, "Trans/s", nil
		}
		k, val, ok := strings.Cut(line, "=")
		switch {
		case !ok:
		case k == "THROUGHPUT":
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return 0, "", fmt.Errorf("netperf printed THROUGHPUT=%q: not a number", val)
			}
			v, found = x, true
		case k == "THROUGHPUT_UNITS":
			units = val
		}
	}
	if !found {
		return 0, "", fmt.Errorf("netperf printed no figure: %q", firstLines(out, 3))
	}
	return v, units, nil
}

// allNumbers reports whether every field is a number.
func allNumbers(fields []string) bool {
	for _, f := range fields {
		if _, err := strconv.ParseFloat(f, 64); err != nil {
			return false
		}
	}
	return true
}

// parseNetscript reads the "THROUGHPUT UNITS" line netscriptCode prints.
func parseNetscript(out []byte) (float64, string, error) {
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, "", fmt.Errorf("netscript printed %q, want a figure and its units", firstLines(out, 3))
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, "", fmt.Errorf("netscript printed %q, want a figure and its units", firstLines(out, 3))
	}
	return v, f[1], nil
}

// firstLines is at most n lines of out, trimmed, for an error message.
func firstLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, " | ")
}

// hasNetperfListen reports whether netscript serve's usage (serve -h)
// offers --netperf-listen.
func hasNetperfListen(usage []byte) bool {
	return strings.Contains(string(usage), "netperf-listen")
}

// noServerOption reports whether a script's failure says its netscript
// does not know the workloads' server= option.
func noServerOption(out string) bool {
	return strings.Contains(out, "unknown option server")
}

// npCycle is the order the four cells run in: every pair whose ratio the
// table prints is adjacent in it (A C for C/A, D B for D/B, B A for B/A
// across the end), so that each ratio compares runs made one after the
// other, apart from the round where rotation splits its pair.
var npCycle = [4]int{0, 2, 3, 1}

// rotation is the order of the four cells in round r: npCycle rotated by
// r (ACDB, CDBA, DBAC, BACD, ...), so that none always runs first or
// always after the same one.
func rotation(r int) [4]int {
	var o [4]int
	for i := range o {
		o[i] = npCycle[(i+r)%4]
	}
	return o
}

// checkNetperfRows refuses a name in -netperf-rows that is no row.
func checkNetperfRows(list string) error {
	if list == "" {
		return nil
	}
	var known []string
	for _, r := range npRows {
		known = append(known, r.name)
	}
	for _, name := range strings.Split(list, ",") {
		if !slices.Contains(known, name) {
			return fmt.Errorf("-netperf-rows: no row %q (rows: %s)", name, strings.Join(known, ","))
		}
	}
	return nil
}

// findNetperf returns the folder holding netperf and netserver: dir if
// given, else netperfDirName from the project root, found from the working
// directory up, then from the folder above the nsbench binary's. It
// returns "" and why when there is none.
func findNetperf(dir, cwd, exe string) (string, string) {
	if dir != "" {
		if err := netperfIn(dir); err != nil {
			return "", err.Error()
		}
		return dir, ""
	}
	var tried []string
	for _, start := range []string{cwd, filepath.Dir(filepath.Dir(exe))} {
		if start == "" || start == "." {
			continue
		}
		root := projectRoot(start)
		if root == "" {
			continue
		}
		d := filepath.Join(root, netperfDirName)
		if netperfIn(d) == nil {
			return d, ""
		}
		tried = append(tried, d)
	}
	if len(tried) == 0 {
		return "", "no project root (go.mod) above " + cwd + "; give -netperf DIR"
	}
	return "", fmt.Sprintf("no netperf and netserver in %s; give -netperf DIR", strings.Join(tried, " or "))
}

// projectRoot is the nearest folder at or above dir that holds go.mod.
func projectRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// netperfIn checks that dir holds executable netperf and netserver.
func netperfIn(dir string) error {
	for _, name := range []string{"netperf", "netserver"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("-netperf %s: %v", dir, err)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("-netperf %s: %s is not executable", dir, name)
		}
	}
	return nil
}

// waitListen waits until something accepts TCP connections at addr.
func waitListen(addr string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens at %s after %v: %w", addr, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
