// Command nsbench measures netscript against the C reference pingpong
// (../shared/ref/pingpong.c) on loopback, side by side in one run: for each
// workload and CPU placement it alternates the two tools for several rounds
// and prints the median ratio netscript/reference (transactions per second
// for RR workloads, 10^6 bits/s for streams). `make bench` runs it.
//
// Both servers are pinned to CPU 0; the clients to CPU 0 ("same") or CPU 1
// ("diff"), with taskset, the same way for both tools.
//
// The flows rows (flows.go) measure netscript alone: the aggregate
// throughput of one tcp_rr or tcp_crr test of 1 to 1000 flows against a
// daemon on every CPU, and the ratio of 1000 flows to the best lower count;
// then tcp_stream and tcp_maerts of 1 to 256 flows (streamflows.go), with
// -baseline against the other binary in the same rounds.
//
// Every row also runs the Go floor (floor.go, floor_server.go): a bare Go
// client and server doing what pingpong does, to tell the Go runtime's cost
// on this machine from netscript's own.
//
// The netperf table (netperf.go, netperf_table.go) runs netperf 2.7.1 and
// netscript at both ends of every workload: netperf to netserver and to
// `netscript serve --netperf-listen`, netscript to its own daemon and to
// netserver (server="netserver"), alternating round by round, and prints
// the ratios that say whether the far end changes the figure.
//
// The open-model rows (openmodel.go) run tcp_rr with arrival_rate at
// shares of the closed model's rate and give the share of its scheduled
// requests that started on time.
//
// With -hostile (`make bench-hostile`) it measures instead what idle and
// hostile control connections cost a daemon (hostile.go).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// workload is one row of the table: how to run it with each tool.
type workload struct {
	name     string // netscript's builtin
	pingpong string // the reference's mode; "" where it has none (TCP_CC)
	floor    string // the Go floor's mode (pingpong's, and "cc")
	extra    string // extra netscript options
	ppArgs   []string
	// serverSends: netscript's server is the sender (TCP_MAERTS). The
	// reference's only stream mode has its client send, so for it to send
	// from the CPU netscript's server sends from, its client runs on CPU 0
	// against a second reference server on the client's CPU.
	serverSends bool
	// row names a row that runs a workload with an option beside its
	// plain row ("tcp_crr tcp_info=True"); "" is the workload's name.
	row string
	// local is the row's mode of nsbench floor local (floor_local.go),
	// for the workloads pingpong has none for: the floor's client and
	// server in one process, the server's threads on CPU 0.
	local string
}

// label is the row's name, in the table and in -only.
func (w workload) label() string {
	if w.row != "" {
		return w.row
	}
	return w.name
}

// The reference's client sets TCP_NODELAY on every connection it makes, so
// every TCP row runs netscript with nodelay=True too: the same system calls
// per TCP_CRR connection, and for the streams the same segments (without
// it Nagle lets 16 KiB sends coalesce into 64 KiB segments, an easier
// workload that ran at about 1.9 times the rate on different CPUs).
var workloads = []workload{
	{name: "tcp_rr", pingpong: "rr", floor: "rr", extra: ", nodelay=True"},
	{name: "tcp_crr", pingpong: "crr", floor: "crr", extra: ", nodelay=True"},
	// What reading TCP_INFO of every connection before its close costs.
	{name: "tcp_crr", pingpong: "crr", floor: "crr", extra: ", nodelay=True, tcp_info=True", row: "tcp_crr tcp_info=True"},
	{name: "udp_rr", pingpong: "udprr", floor: "udprr"},
	// The reference has one stream mode (client to its PORT+1 sink); both
	// stream directions are compared with it, at the same message size.
	{name: "tcp_stream", pingpong: "stream", floor: "stream", extra: ", send_size=16384, nodelay=True", ppArgs: []string{"16384"}},
	{name: "tcp_maerts", pingpong: "stream", floor: "stream", extra: ", send_size=16384, nodelay=True", ppArgs: []string{"16384"}, serverSends: true},
	// The reference has no TCP_CC: its row is netscript against the floor.
	{name: "tcp_cc", floor: "cc", extra: ", nodelay=True"},
	// Nor any of these (issue 32's): each row is netscript against a floor
	// of its own (floor_local.go). Streams send 16384-byte messages.
	{name: "tcp_bidir", local: "bidir", extra: ", send_size=16384, nodelay=True"},
	{name: "tcp_sendfile", local: "sendfile", extra: ", send_size=16384, nodelay=True"},
	{name: "unix_rr", local: "unixrr"},
	{name: "unix_crr", local: "unixcrr"},
	{name: "unix_stream", local: "unixstream", extra: ", send_size=16384"},
	{name: "unixgram_rr", local: "unixgramrr"},
	{name: "unixgram_stream", local: "unixgramstream", extra: ", send_size=16384"},
	{name: "tcp_rr", local: "mptcprr", extra: ", nodelay=True, protocol='mptcp'", row: "tcp_rr protocol=mptcp"},
	{name: "tcp_stream", local: "mptcpstream", extra: ", send_size=16384, nodelay=True, protocol='mptcp'", row: "tcp_stream protocol=mptcp"},
}

// target is where the reference's (or the floor's) client runs for a
// netscript client on cpu, and which of its servers it talks to: port on
// CPU 0, or port1 on CPU 1. For serverSends on different CPUs the client
// sends from CPU 0 to the server on the netscript client's CPU.
func (w workload) target(cpu string, port, port1 int) (int, string) {
	if w.serverSends && cpu != "0" {
		return port1, "0"
	}
	return port, cpu
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		os.Exit(runFloor(os.Args[2:]))
	}
	netscript := flag.String("netscript", "bin/netscript", "the netscript binary")
	pingpong := flag.String("pingpong", ".bench/pingpong", "the reference binary")
	rounds := flag.Int("rounds", 5, "rounds per cell")
	secs := flag.Float64("seconds", 3, "length of each run")
	only := flag.String("only", "", "comma-separated workloads to run (default all)")
	embedded := flag.Bool("embedded", true, "also compare the embedded server with a separate daemon")
	flowRows := flag.Bool("flows", true, "also measure aggregate throughput against flows (flows.go, streamflows.go); -only flows runs only those rows, -only stream-flows only the streams'")
	baseline := flag.String("baseline", "", "another netscript binary (the last release, say) to run with its own daemon in the same rounds; its column ns/base is netscript over it")
	netperfFlag := flag.String("netperf", "", "the folder of netperf and netserver 2.7.1 for the netperf table (netperf.go; default "+netperfDirName+" from the project root; off: no netperf table); -only netperf runs only that table")
	npOnly := flag.String("netperf-rows", "", "comma-separated rows of the netperf table (default all)")
	flag.Parse()
	err := checkArgs(*only, *rounds, *secs)
	if err == nil {
		err = checkNetperfRows(*npOnly)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: %v\n", err)
		os.Exit(2)
	}
	// Where netperf is, before anything runs: a -netperf given that
	// holds none is a mistake; none found by default, a note in its place.
	netperfDir, noNetperf := "", "-netperf off"
	if *netperfFlag != "off" {
		cwd, _ := os.Getwd()
		exe, _ := os.Executable()
		if netperfDir, noNetperf = findNetperf(*netperfFlag, cwd, exe); netperfDir == "" && *netperfFlag != "" {
			fmt.Fprintf(os.Stderr, "nsbench: %s\n", noNetperf)
			os.Exit(2)
		}
	}
	runLimit = 3*time.Duration(*secs*float64(time.Second)) + time.Minute
	if *hostile { // hostile.go
		runHostile(*netscript, *rounds, *secs)
		return
	}

	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: %v\n", err)
		exit(1)
	}
	// The main table's servers (and the embedded table's daemon), only
	// for those tables: -only netperf or flows needs no pingpong.
	defer stopServers()
	var ppPort, ppPort1, nsPort, basePort, floorPort, floorPort1 int
	if mainRows(*only) {
		ppPort, ppPort1, nsPort = freePort(), freePort(), freePort()
		start("0", *pingpong, "serve", "-p", strconv.Itoa(ppPort))
		start("1", *pingpong, "serve", "-p", strconv.Itoa(ppPort1)) // a receiver on CPU 1 (serverSends)
		start("0", *netscript, "serve", "--quiet", "--listen", fmt.Sprintf("127.0.0.1:%d", nsPort))
		if *baseline != "" {
			basePort = freePort()
			start("0", *baseline, "serve", "--quiet", "--listen", fmt.Sprintf("127.0.0.1:%d", basePort))
		}
		floorPort, floorPort1 = freePort(), freePort()
		start("0", self, "floor", "serve", strconv.Itoa(floorPort))
		start("1", self, "floor", "serve", strconv.Itoa(floorPort1)) // as the second pingpong
		awaitServers(ppPort, ppPort1, nsPort, basePort, floorPort, floorPort1)
	}

	if mainRows(*only) {
		fmt.Printf("netscript/pingpong, median of %d alternating rounds of %g s; servers on CPU 0\n", *rounds, *secs)
	}
	// A cgo build pays glibc's rseq on every context switch (about 1 % a
	// round trip per end here): say which build is measured.
	if out, err := exec.Command(*netscript, "version").Output(); err == nil {
		v := strings.TrimSpace(string(out))
		fmt.Printf("(measuring %s)\n", v)
		if strings.HasSuffix(v, ", cgo)") {
			fmt.Printf("(a cgo build: expect about 1 %% less per end than the static one make build makes)\n")
		}
	}
	if mainRows(*only) {
		fmt.Printf("(tcp_maerts diff: the reference and the floor send from CPU 0 to a receiver on CPU 1, as netscript's server does to its client)\n")
		fmt.Printf("(go floor: a bare Go client and server doing what pingpong does, the same rounds; floor/pp is what any Go engine pays here)\n")
		fmt.Printf("(ns/floor: netscript over the floor, round by round; tcp_cc has no pingpong row, so it is measured against the floor)\n")
		if *baseline != "" {
			fmt.Printf("(ns/base: netscript over %s, each with its own daemon on CPU 0, round by round)\n", *baseline)
		}
		fmt.Printf("%-12s %-6s %14s %14s %8s %9s %9s %8s\n", "workload", "client", "netscript", "pingpong", "ratio", "floor/pp", "ns/floor", "ns/base")
	}
	for _, w := range workloads {
		if *only != "" && !strings.Contains(","+*only+",", ","+w.label()+",") {
			continue
		}
		if strings.HasPrefix(w.local, "mptcp") && !mptcpListenable() {
			fmt.Printf("%-12s %-6s n/a (this kernel gives no MPTCP socket: net.mptcp.enabled=0, or no CONFIG_MPTCP)\n", w.label(), "")
			continue
		}
		for _, place := range []struct{ name, cpu string }{{"same", "0"}, {"diff", "1"}} {
			var ratios, nsv, ppv, floors, overFloor, overBase []float64
			hasBase := *baseline != "" && hasBuiltin(*baseline, w.name) && w.row == "" // an older release may lack the option
			for r := 0; r < *rounds; r++ {
				runNS := func(bin string, port int) float64 {
					code := fmt.Sprintf("print(%s(host='127.0.0.1', port=%d, duration=%g%s).throughput)", w.name, port, *secs, w.extra)
					return measure(place.cpu, bin, "-c", code)
				}
				runPP := func() float64 {
					if w.pingpong == "" {
						return 0
					}
					port, cpu := w.target(place.cpu, ppPort, ppPort1)
					args := append([]string{w.pingpong, "127.0.0.1", strconv.Itoa(port), fmt.Sprint(*secs)}, w.ppArgs...)
					return measure(cpu, *pingpong, args...)
				}
				runFloor := func() float64 {
					if w.local != "" {
						return measure(place.cpu, self, "floor", "local", w.local, fmt.Sprint(*secs))
					}
					port, cpu := w.target(place.cpu, floorPort, floorPort1)
					args := append([]string{"floor", w.floor, "127.0.0.1", strconv.Itoa(port), fmt.Sprint(*secs)}, w.ppArgs...)
					return measure(cpu, self, args...)
				}
				runBase := func() float64 {
					if !hasBase {
						return 0
					}
					return runNS(*baseline, basePort)
				}
				var a, b, f, o float64
				if r%2 == 0 {
					a, b, f, o = runNS(*netscript, nsPort), runPP(), runFloor(), runBase()
				} else {
					o, f, b = runBase(), runFloor(), runPP()
					a = runNS(*netscript, nsPort)
				}
				nsv, ppv, overFloor = append(nsv, a), append(ppv, b), append(overFloor, a/f)
				if b > 0 {
					ratios, floors = append(ratios, a/b), append(floors, f/b)
				}
				if o > 0 {
					overBase = append(overBase, a/o)
				}
			}
			base := "-"
			if len(overBase) > 0 {
				base = fmt.Sprintf("%.3f", median(overBase))
			}
			if w.pingpong == "" {
				fmt.Printf("%-12s %-6s %14.2f %14s %8s %9s %9.3f %8s   rounds (ns/floor): %s\n", w.label(), place.name, median(nsv), "-", "-", "-",
					median(overFloor), base, fmtList(overFloor))
				continue
			}
			fmt.Printf("%-12s %-6s %14.2f %14.2f %8.3f %9.3f %9.3f %8s   rounds: %s\n", w.label(), place.name, median(nsv), median(ppv),
				median(ratios), median(floors), median(overFloor), base, fmtList(ratios))
			if len(overBase) > 0 {
				fmt.Printf("%-12s %-6s %71s   rounds (ns/base): %s\n", "", "", "", fmtList(overBase))
			}
		}
	}
	if *embedded && mainRows(*only) {
		compareEmbedded(*netscript, nsPort, *rounds, *secs, *only)
	}
	if *only == "" || strings.Contains(","+*only+",", ","+netperfRow+",") {
		if netperfDir == "" {
			fmt.Printf("\nnetperf table: n/a (%s)\n", noNetperf)
		} else {
			benchNetperf(*netscript, netperfDir, *npOnly, *rounds, *secs) // netperf_table.go
		}
	}
	if *only == "" || strings.Contains(","+*only+",", ","+openModelRow+",") {
		benchOpenModel(*netscript, *rounds, *secs) // openmodel.go
	}
	if *flowRows && (*only == "" || strings.Contains(","+*only+",", ",flows,")) {
		benchFlows(*netscript, *rounds, *secs)
	}
	if *flowRows && (*only == "" || strings.Contains(","+*only+",", ",flows,") || strings.Contains(","+*only+",", ","+streamFlowsRow+",")) {
		benchStreamFlows(*netscript, *baseline, *rounds, *secs) // streamflows.go
	}
}

// compareEmbedded alternates the same test against the embedded server and
// against the separate daemon, everything on CPU 0, and prints the median
// ratio embedded/daemon: the embedded default must give the daemon's
// figures.
func compareEmbedded(netscript string, nsPort, rounds int, secs float64, only string) {
	fmt.Printf("\nembedded server / separate daemon, everything on CPU 0, median of %d rounds\n", rounds)
	fmt.Printf("%-12s %14s %14s %8s\n", "workload", "embedded", "daemon", "ratio")
	for _, w := range workloads {
		if w.row != "" || only != "" && !strings.Contains(","+only+",", ","+w.name+",") {
			continue // an option's row compares with pingpong only
		}
		emb := func() float64 {
			return measure("0", netscript, "-c", fmt.Sprintf("print(%s(duration=%g).throughput)", w.name, secs))
		}
		dae := func() float64 {
			return measure("0", netscript, "-c", fmt.Sprintf("print(%s(host='127.0.0.1', port=%d, duration=%g).throughput)", w.name, nsPort, secs))
		}
		dv, ev, ratios := alternate(rounds, dae, emb) // ratios: embedded over daemon

		fmt.Printf("%-12s %14.2f %14.2f %8.3f   rounds: %s\n", w.name, median(ev), median(dv), median(ratios), fmtList(ratios))
	}
}

// mainRows reports whether -only selects a row of the main table (a
// workload), so that its header is printed only then.
func mainRows(only string) bool {
	for _, w := range workloads {
		if only == "" || strings.Contains(","+only+",", ","+w.label()+",") {
			return true
		}
	}
	return false
}

// hasBuiltin reports whether the netscript binary bin has the builtin
// name (a baseline of an older release may lack a newer workload).
func hasBuiltin(bin, name string) bool {
	return exec.Command(bin, "-c", name).Run() == nil
}

func fmtList(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%.3f", x))
	}
	return strings.Join(s, " ")
}

// checkArgs refuses what would otherwise print an empty or meaningless
// table: a name in -only that is no row (a typo ran nothing), no rounds,
// no seconds.
func checkArgs(only string, rounds int, secs float64) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", rounds)
	}
	if !(secs > 0) {
		return fmt.Errorf("-seconds %g: want more than 0", secs)
	}
	if only == "" {
		return nil
	}
	known := []string{"flows", streamFlowsRow, netperfRow, openModelRow}
	for _, w := range workloads {
		known = append(known, w.label())
	}
	for _, name := range strings.Split(only, ",") {
		if !slices.Contains(known, name) {
			return fmt.Errorf("-only: no row %q (rows: %s)", name, strings.Join(known, ","))
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// start runs a server pinned to cpu and returns a function that stops it.
func start(cpu, bin string, args ...string) func() {
	cmd := exec.Command("taskset", append([]string{"-c", cpu, bin}, args...)...)
	errs := &serverLog{name: bin}
	cmd.Stderr = errs
	serverLogs = append(serverLogs, errs)
	// A server's children (netserver forks one per test) may hold its
	// stderr after it is killed: stopping it must not wait for them.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: start %s: %v\n", bin, err)
		exit(1)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
	running = append(running, stop)
	return stop
}

// running stops each server started so far (once: a stopped one is not
// stopped again).
var running []func()

// exit stops the servers still running and ends the benchmark with
// status: an error that ends it midway must not leave them behind.
func exit(status int) {
	stopServers()
	os.Exit(status)
}

// stopServers stops the servers still running.
func stopServers() {
	for _, stop := range running {
		stop()
	}
}

// serverLog keeps the start of what a server printed on stderr, to say
// why it did not start.
type serverLog struct {
	name string
	mu   sync.Mutex
	b    bytes.Buffer
}

// serverLogs are the logs of the servers started so far.
var serverLogs []*serverLog

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 4096 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runLimit bounds one client run: a run that hangs ends the benchmark with
// an error instead of holding it forever. main sets it from -seconds.
var runLimit = 2 * time.Minute

// runClient runs a client pinned to cpus and returns what it printed on
// stdout; a failure or a run longer than runLimit ends the benchmark.
func runClient(cpus, bin string, args ...string) []byte {
	out, err := tryClient(cpus, bin, args...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: %v\n", err)
		exit(1)
	}
	return out
}

// tryClient runs a client pinned to cpus and returns what it printed on
// stdout; a failure or a run longer than runLimit is an error that names
// the command and holds what it printed.
func tryClient(cpus, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "taskset", append([]string{"-c", cpus, bin}, args...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %v", runLimit)
	}
	if err != nil {
		return out, fmt.Errorf("%s %q: %v: %s", bin, args, err, firstLines(append(errb.Bytes(), out...), 6))
	}
	return out, nil
}

// measure runs a client pinned to cpu and parses the number it prints.
func measure(cpu, bin string, args ...string) float64 {
	out := runClient(cpu, bin, args...)
	f, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: %s printed %q\n", bin, out)
		exit(1)
	}
	return f
}

// awaitServers waits until a server listens at each of ports on 127.0.0.1
// (0: none), the benchmark's servers having just been started; one that
// does not within 10 s (on a loaded machine a fixed pause was once too
// short, and a run then failed with "connection refused") ends the
// benchmark.
func awaitServers(ports ...int) {
	for _, p := range ports {
		if p == 0 {
			continue
		}
		if err := waitListen(fmt.Sprintf("127.0.0.1:%d", p), 10*time.Second); err != nil {
			fmt.Fprintf(os.Stderr, "nsbench: a server did not start: %v\n", err)
			for _, l := range serverLogs {
				if s := l.String(); s != "" {
					fmt.Fprintf(os.Stderr, "  %s: %s\n", l.name, firstLines([]byte(s), 4))
				}
			}
			exit(1)
		}
	}
}
