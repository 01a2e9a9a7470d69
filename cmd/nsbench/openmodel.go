package main

import (
	"fmt"
	"os"
	"strings"
)

// openModelRow is the -only name of the open model's rows.
const openModelRow = "openmodel"

// openShares are the loads of the open-model rows, as shares of what the
// closed model does on the same placement in the same round.
var openShares = []float64{0.05, 0.1, 0.25, 0.5}

// benchOpenModel measures how well an open-model tcp_rr (arrival_rate)
// keeps to its schedule: against a daemon on CPU 0 from a client on CPU 1,
// each round first runs the closed model as fast as it goes, then the open
// model at shares of that rate, and the rows give the median share of the
// scheduled requests that started on time (result.schedule.on_time) and
// the open model's p99. The bar is at least 0.99 on time at a
// sustainable rate on an idle machine; the machine's load average is
// printed beside it.
func benchOpenModel(netscript string, rounds int, secs float64) {
	port := freePort()
	stop := start("0", netscript, "serve", "--quiet", "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	defer stop()
	awaitServers(port)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nopen-model tcp_rr (arrival_rate) at shares of the closed model's rate, median of %d runs of %.0f s; daemon on CPU 0, client on CPU 1; load average %s\n",
		rounds, secs, strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	fmt.Printf("%-10s %12s %12s %10s %12s %6s\n", "load", "closed/s", "arrivals/s", "on_time", "open p99 us", ">=0.99")
	closed := make([]float64, 0, rounds)
	onTime := make([][]float64, len(openShares))
	p99 := make([][]float64, len(openShares))
	for r := 0; r < rounds; r++ {
		c := measure("1", netscript, "-c", fmt.Sprintf("print(tcp_rr(host='127.0.0.1', port=%d, duration=%g, nodelay=True).throughput)", port, secs))
		closed = append(closed, c)
		for i, share := range openShares {
			code := fmt.Sprintf("r = tcp_rr(host='127.0.0.1', port=%d, duration=%g, nodelay=True, arrival_rate=%g)\nprint(r.schedule.on_time, r.latency.p99)",
				port, secs, c*share)
			a, b := measure2("1", netscript, "-c", code)
			onTime[i], p99[i] = append(onTime[i], a), append(p99[i], b)
		}
	}
	for i, share := range openShares {
		verdict := "no"
		if median(onTime[i]) >= 0.99 {
			verdict = "yes"
		}
		fmt.Printf("%-10s %12.0f %12.0f %10.4f %12.1f %6s   rounds (on_time): %s\n", fmt.Sprintf("%.0f%%", share*100), median(closed),
			median(closed)*share, median(onTime[i]), median(p99[i]), verdict, fmtList(onTime[i]))
	}
}
