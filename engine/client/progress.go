package client

import (
	"time"

	"netscript/engine/workload"
)

// Progress is a snapshot of a running test, for a live display.
type Progress struct {
	Test         string        // "TCP_RR", ...
	Brand        string        // the test's tag
	Elapsed      time.Duration // of the measured interval so far
	Total        time.Duration // the test's length; 0 when it ends by count
	Transactions uint64        // completed so far
	Throughput   float64       // over the interval so far
	Units        string        // of Throughput
}

// ProgressEvery is how often Options.Progress is called during a test.
const ProgressEvery = 200 * time.Millisecond

// watch calls report with the loop's published counts every ProgressEvery
// until done is closed.
func watch(live *workload.Live, base Progress, done <-chan struct{}, report func(Progress)) {
	t := time.NewTicker(ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		p := base
		p.Elapsed = time.Duration(live.At.Load())
		p.Transactions = live.Transactions.Load()
		if p.Elapsed > 0 {
			p.Throughput = float64(p.Transactions) / p.Elapsed.Seconds()
		}
		report(p)
	}
}
