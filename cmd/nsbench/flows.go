package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// flowCounts are the flow counts of the flows rows.
var flowCounts = []int{1, 4, 16, 64, 256, 1000}

// benchFlows measures aggregate throughput against the number of flows of
// one test, for tcp_rr and tcp_crr, against a daemon on every CPU: the
// median of rounds runs per cell, the median start skew, and the ratio of
// 1000 flows to the best lower count (no collapse: at least 0.8).
func benchFlows(netscript string, rounds int, secs float64) {
	cpus := fmt.Sprintf("0-%d", runtime.NumCPU()-1)
	port := freePort()
	stop := start(cpus, netscript, "serve", "--quiet", "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	defer stop()
	awaitServers(port)
	fmt.Printf("\naggregate throughput against flows in one test, median of %d runs of %.0f s; daemon and client on every CPU\n", rounds, secs)
	fmt.Printf("%-8s", "workload")
	for _, n := range flowCounts {
		fmt.Printf(" %11s", fmt.Sprintf("%d flows", n))
	}
	fmt.Printf(" %8s\n", "1000/best")
	for _, w := range []string{"tcp_rr", "tcp_crr"} {
		var med, skew []float64
		for _, n := range flowCounts {
			var tp, sk []float64
			for r := 0; r < rounds; r++ {
				code := fmt.Sprintf("r = %s(host='127.0.0.1', port=%d, duration=%g, flows=%d)\nprint(r.throughput, r.start_skew)", w, port, secs, n)
				a, b := measure2(cpus, netscript, "-c", code)
				tp, sk = append(tp, a), append(sk, b)
			}
			med, skew = append(med, median(tp)), append(skew, median(sk))
		}
		best := 0.0
		for _, v := range med[:len(med)-1] {
			best = max(best, v)
		}
		fmt.Printf("%-8s", w)
		for _, v := range med {
			fmt.Printf(" %11.0f", v)
		}
		fmt.Printf(" %8.3f\n", med[len(med)-1]/best)
		fmt.Printf("%-8s", "  skew ms")
		for _, v := range skew {
			fmt.Printf(" %11.2f", v*1e3)
		}
		fmt.Println()
	}
}

// measure2 runs a client pinned to cpus and parses the two numbers it
// prints.
func measure2(cpus, bin string, args ...string) (float64, float64) {
	out := runClient(cpus, bin, args...)
	f := strings.Fields(string(out))
	if len(f) != 2 {
		fmt.Fprintf(os.Stderr, "nsbench: %s printed %q\n", bin, out)
		exit(1)
	}
	a, err1 := strconv.ParseFloat(f[0], 64)
	b, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintf(os.Stderr, "nsbench: %s printed %q\n", bin, out)
		exit(1)
	}
	return a, b
}
