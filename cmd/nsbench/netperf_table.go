package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// npStand is what the netperf table runs against: a netserver and a
// netscript daemon on CPU 0, and the two clients.
type npStand struct {
	netperf, netscript string
	netserverPort      int // netserver's control port
	nsPort             int // the daemon's native --listen port
	npPort             int // the daemon's --netperf-listen port; 0 without it
	secs               int
	// noC and noD say why cell C or D cannot run ("" when it can).
	noC, noD string
}

// run runs cell k (0-3 for A-D) of row with the client on cpu and returns
// its figure.
func (s *npStand) run(k int, row npRow, cpu string) (float64, error) {
	var out []byte
	var err error
	switch k {
	case 0, 2:
		port := s.netserverPort
		if k == 2 {
			port = s.npPort
		}
		if out, err = tryClient(cpu, s.netperf, netperfArgs(row, port, s.secs)...); err != nil {
			return 0, err
		}
		v, units, err := parseNetperf(out, row.classic)
		if err == nil && units != row.units {
			err = fmt.Errorf("netperf printed %g %s, want %s", v, units, row.units)
		}
		return v, err
	default:
		port, server := s.nsPort, ""
		if k == 3 {
			port, server = s.netserverPort, "netserver"
		}
		if out, err = tryClient(cpu, s.netscript, "-c", netscriptCode(row, port, float64(s.secs), server)); err != nil {
			return 0, err
		}
		v, units, err := parseNetscript(out)
		if err == nil && units != row.units {
			err = fmt.Errorf("netscript printed %g %s, want %s", v, units, row.units)
		}
		return v, err
	}
}

// detect finds out which of C and D this netscript can run, and starts
// the daemon accordingly; it returns the function that stops the daemon,
// or an error when the daemon does not listen.
func (s *npStand) detect() (stop func(), err error) {
	usage, _ := exec.Command(s.netscript, "serve", "-h").CombinedOutput()
	args := []string{"serve", "--quiet", "--listen", fmt.Sprintf("127.0.0.1:%d", s.nsPort)}
	if hasNetperfListen(usage) {
		s.npPort = freePort()
		args = append(args, "--netperf-listen", fmt.Sprintf("127.0.0.1:%d", s.npPort))
	} else {
		s.noC = "this netscript has no --netperf-listen"
	}
	stop = start("0", s.netscript, args...)
	for _, p := range []int{s.nsPort, s.npPort} {
		if p == 0 {
			continue
		}
		if err := waitListen(fmt.Sprintf("127.0.0.1:%d", p), 10*time.Second); err != nil {
			stop()
			return nil, fmt.Errorf("%s %s: %v", s.netscript, strings.Join(args, " "), err)
		}
	}
	// One-second probes with tcp_rr, on different CPUs.
	probe := npRows[0]
	if s.noC == "" {
		if _, err := tryClient("1", s.netperf, netperfArgs(probe, s.npPort, 1)...); err != nil {
			s.noC = "netperf -> netscript serve failed its probe: " + err.Error()
		}
	}
	if _, err := tryClient("1", s.netscript, "-c", netscriptCode(probe, s.netserverPort, 1, "netserver")); err != nil {
		s.noD = "netscript -> netserver failed its probe: " + err.Error()
		if noServerOption(err.Error()) {
			s.noD = `this netscript has no server="netserver"`
		}
	}
	return stop, nil
}

// benchNetperf prints the netperf table for the rows named in only (all
// when it is empty): rounds of the four cells in a rotated order per row
// and placement, with the median figure of each cell and the medians of
// the rounds' ratios C/A, D/B and B/A. A cell this netscript cannot run
// (before --netperf-listen or server="netserver") is n/a, and a run that
// fails is left out of its row with the failure printed; the rest goes on.
func benchNetperf(netscript, netperfDir, only string, rounds int, secs float64) {
	s := &npStand{
		netperf:       filepath.Join(netperfDir, "netperf"),
		netscript:     netscript,
		netserverPort: freePort(),
		nsPort:        freePort(),
		secs:          npSeconds(secs),
	}
	netserver := filepath.Join(netperfDir, "netserver")
	stopNetserver := start("0", netserver, "-D", "-p", strconv.Itoa(s.netserverPort), "-L", "127.0.0.1")
	defer stopNetserver()
	if err := waitListen(fmt.Sprintf("127.0.0.1:%d", s.netserverPort), 10*time.Second); err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: netperf table: %s: %v\n", netserver, err)
		return
	}
	stopDaemon, err := s.detect()
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: netperf table: %v\n", err)
		return
	}
	defer stopDaemon()

	fmt.Printf("\nnetperf 2.7.1 (%s) and netscript at both ends, median of %d rounds of %d s, the cells in the order A C D B rotated by one each round\n", netperfDir, rounds, s.secs)
	if float64(s.secs) != secs {
		fmt.Printf("(netperf's -l takes whole seconds: every cell runs %d s)\n", s.secs)
	}
	fmt.Printf("(servers on CPU 0, clients on CPU 0 (same) or CPU 1 (diff), all pinned with taskset as the pingpong table pins its pairs)\n")
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		// Other work on these CPUs moves single rounds by far more than
		// 2 %, different CPUs most: say how busy the machine was.
		if f := strings.Fields(string(b)); len(f) >= 3 {
			fmt.Printf("(load average %s %s %s at the start)\n", f[0], f[1], f[2])
		}
	}
	fmt.Printf("  A netperf -> netserver          B netscript -> netscript serve\n")
	fmt.Printf("  C netperf -> netscript serve    D netscript -> netserver\n")
	if s.noC != "" {
		fmt.Printf("  C: n/a (%s)\n", s.noC)
	}
	if s.noD != "" {
		fmt.Printf("  D: n/a (%s)\n", s.noD)
	}
	fmt.Printf("(C/A, D/B: the far end must not change the figure; ! marks one outside %.2f-%.2f. B/A: netscript over netperf)\n", npLow, npHigh)
	fmt.Printf("%-12s %-6s %12s %12s %12s %12s %8s %8s %8s\n", "workload", "client", "A", "B", "C", "D", "C/A", "D/B", "B/A")
	for _, row := range npRows {
		if only != "" && !strings.Contains(","+only+",", ","+row.name+",") {
			continue
		}
		for _, place := range []struct{ name, cpu string }{{"same", "0"}, {"diff", "1"}} {
			v := s.rounds(row, place.cpu, rounds)
			ca, db, ba := ratios(v[2], v[0]), ratios(v[3], v[1]), ratios(v[1], v[0])
			fmt.Printf("%-12s %-6s %12s %12s %12s %12s %8s %8s %8s\n", row.name, place.name,
				cellFigure(v[0], ""), cellFigure(v[1], ""), cellFigure(v[2], s.noC), cellFigure(v[3], s.noD),
				fmtRatio(ca, true), fmtRatio(db, true), fmtRatio(ba, false))
			fmt.Printf("%-12s %-6s rounds %s\n", "", "", roundsLine([]string{"C/A", "D/B", "B/A"}, [][]float64{ca, db, ba}))
		}
	}
}

// rounds runs the four cells of row rounds times with the client on cpu,
// in the order rotation gives each round, and returns each cell's figures
// by round: NaN where the cell is n/a or its run failed (the failure
// printed; a cell that failed runs no more in this row and placement).
func (s *npStand) rounds(row npRow, cpu string, rounds int) [4][]float64 {
	var v [4][]float64
	var failed [4]bool
	failed[2], failed[3] = s.noC != "", s.noD != ""
	for r := 0; r < rounds; r++ {
		var fig [4]float64
		for _, k := range rotation(r) {
			fig[k] = math.NaN()
			if failed[k] {
				continue
			}
			x, err := s.run(k, row, cpu)
			if err != nil {
				fmt.Fprintf(os.Stderr, "nsbench: netperf table, %s, client on CPU %s, cell %s: %v\n", row.name, cpu, npCells[k], err)
				failed[k] = true
				continue
			}
			fig[k] = x
		}
		for k := range v {
			v[k] = append(v[k], fig[k])
		}
	}
	return v
}

// ratios is num/den round by round, NaN where either is missing.
func ratios(num, den []float64) []float64 {
	q := make([]float64, len(num))
	for i := range num {
		q[i] = num[i] / den[i]
		if den[i] == 0 || math.IsNaN(num[i]) || math.IsNaN(den[i]) {
			q[i] = math.NaN()
		}
	}
	return q
}

// present is xs without its NaNs.
func present(xs []float64) []float64 {
	var p []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			p = append(p, x)
		}
	}
	return p
}

// cellFigure is a cell's median figure, "n/a" when the cell cannot run
// here (why is not ""), "failed" when no run of it succeeded.
func cellFigure(xs []float64, why string) string {
	p := present(xs)
	switch {
	case why != "":
		return "n/a"
	case len(p) == 0:
		return "failed"
	}
	return fmt.Sprintf("%.2f", median(p))
}

// fmtRatio is the median of a ratio's rounds, "-" with none; with target,
// marked "!" when it is outside npLow to npHigh.
func fmtRatio(q []float64, target bool) string {
	p := present(q)
	if len(p) == 0 {
		return "-"
	}
	m := median(p)
	if target && (m < npLow || m > npHigh) {
		return fmt.Sprintf("%.3f!", m)
	}
	return fmt.Sprintf("%.3f", m)
}

// roundsLine lists the rounds of each named ratio that has any, "-" when
// none has.
func roundsLine(names []string, qs [][]float64) string {
	var parts []string
	for i, q := range qs {
		if len(present(q)) > 0 {
			parts = append(parts, names[i]+": "+fmtRounds(q))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// fmtRounds lists a ratio's rounds, "-" for a round without it.
func fmtRounds(q []float64) string {
	var s []string
	for _, x := range q {
		if math.IsNaN(x) {
			s = append(s, "-")
		} else {
			s = append(s, fmt.Sprintf("%.3f", x))
		}
	}
	return strings.Join(s, " ")
}
