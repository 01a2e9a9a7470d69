package main

import (
	"fmt"
	"runtime"
	"strings"
)

// streamFlowCounts are the flow counts of the stream flows rows: past
// spec.ThreadedFlows (4) the daemon serves a stream's flows on a few epoll
// threads instead of a thread each, so the rows show what that does.
var streamFlowCounts = []int{1, 4, 16, 64, 256}

// streamFlowsRow names the stream flows rows in -only.
const streamFlowsRow = "stream-flows"

// flowsStand is one netscript binary of the stream flows rows with its own
// daemon on every CPU.
type flowsStand struct {
	bin  string
	port int
	stop func()
}

// standUp starts bin's daemon on cpus.
func standUp(cpus, bin string) *flowsStand {
	port := freePort()
	return &flowsStand{bin: bin, port: port, stop: start(cpus, bin, "serve", "--quiet", "--listen", fmt.Sprintf("127.0.0.1:%d", port))}
}

// run runs one test of w with n flows against the stand's own daemon and
// returns its aggregate throughput.
func (s *flowsStand) run(cpus, w string, n int, secs float64) float64 {
	code := fmt.Sprintf("print(%s(host='127.0.0.1', port=%d, duration=%g, flows=%d).throughput)", w, s.port, secs, n)
	return measure(cpus, s.bin, "-c", code)
}

// benchStreamFlows measures the aggregate throughput (10^6 bits/s) of one
// tcp_stream or tcp_maerts test against its flow count, daemon and client
// on every CPU: the median of rounds runs per cell. With a baseline binary
// (-baseline), it runs each round with both binaries, each against its own
// daemon, in alternating order, and prints the baseline's medians and the
// median of the round-by-round ratios ns/base.
func benchStreamFlows(netscript, baseline string, rounds int, secs float64) {
	cpus := fmt.Sprintf("0-%d", runtime.NumCPU()-1)
	ns := standUp(cpus, netscript)
	defer ns.stop()
	var base *flowsStand
	if baseline != "" {
		base = standUp(cpus, baseline)
		defer base.stop()
	}
	if base != nil {
		awaitServers(base.port)
	}
	awaitServers(ns.port)
	fmt.Printf("\nstream throughput (10^6 bits/s) against flows in one test, median of %d runs of %g s; daemon and client on every CPU\n", rounds, secs)
	if base != nil {
		fmt.Printf("(base: %s with its own daemon, alternating with netscript round by round; ns/base: the median of the rounds' ratios)\n", baseline)
	}
	fmt.Printf("%-12s", "workload")
	for _, n := range streamFlowCounts {
		fmt.Printf(" %11s", fmt.Sprintf("%d flows", n))
	}
	fmt.Println()
	for _, w := range []string{"tcp_stream", "tcp_maerts"} {
		withBase := base != nil && hasBuiltin(baseline, w)
		var nsMed, baseMed, ratioMed []float64
		var ratios []string
		for _, n := range streamFlowCounts {
			var a, b, q []float64
			for r := 0; r < rounds; r++ {
				if !withBase {
					a = append(a, ns.run(cpus, w, n, secs))
					continue
				}
				var x, y float64
				if r%2 == 0 {
					x, y = ns.run(cpus, w, n, secs), base.run(cpus, w, n, secs)
				} else {
					y, x = base.run(cpus, w, n, secs), ns.run(cpus, w, n, secs)
				}
				a, b, q = append(a, x), append(b, y), append(q, x/y)
			}
			nsMed = append(nsMed, median(a))
			if withBase {
				baseMed, ratioMed = append(baseMed, median(b)), append(ratioMed, median(q))
				ratios = append(ratios, fmt.Sprintf("%d: %s", n, fmtList(q)))
			}
		}
		printRow(w, "%11.0f", nsMed)
		if withBase {
			printRow("  base", "%11.0f", baseMed)
			printRow("  ns/base", "%11.3f", ratioMed)
			fmt.Printf("%-12s rounds (ns/base): %s\n", "", strings.Join(ratios, "; "))
		}
	}
}

// printRow prints one row of a flows table.
func printRow(name, format string, vs []float64) {
	fmt.Printf("%-12s", name)
	for _, v := range vs {
		fmt.Printf(" "+format, v)
	}
	fmt.Println()
}
