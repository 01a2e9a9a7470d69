package client

import (
	"time"

	"netscript/engine/result"
	"netscript/engine/workload"
)

// Progress is a snapshot of a running test, for a live display.
type Progress struct {
	Test         string        // "TCP_RR", ...
	Brand        string        // the test's tag
	Elapsed      time.Duration // of the measured interval so far
	Total        time.Duration // the test's length; 0 when it ends by count
	Transactions uint64        // completed so far (RR tests)
	Bytes        uint64        // moved so far (sent plus received)
	Throughput   float64       // over the interval so far
	Units        string        // of Throughput
	// Retransmits is the TCP segments the flows' connections have
	// retransmitted so far (TCP_INFO); nil for a test without them.
	Retransmits *uint64
}

// ProgressEvery is how often Options.Progress is called during a test.
const ProgressEvery = 200 * time.Millisecond

// watch calls report with the loops' published counts, summed over the
// flows, every ProgressEvery until done is closed. For streams the
// throughput is in 10^6 bits/s of the bytes moved, else in transactions per
// second.
func watch(lives []*workload.Live, base Progress, stream bool, done <-chan struct{}, report func(Progress)) {
	t := time.NewTicker(ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		p := base
		for _, live := range lives {
			p.Elapsed = max(p.Elapsed, time.Duration(live.At.Load()))
			p.Transactions += live.Transactions.Load()
			p.Bytes += live.Bytes.Load()
		}
		if p.Elapsed > 0 {
			if stream {
				p.Throughput = float64(p.Bytes) * 8 / 1e6 / p.Elapsed.Seconds()
			} else {
				p.Throughput = float64(p.Transactions) / p.Elapsed.Seconds()
			}
		}
		report(p)
	}
}

// Interim is one interim result of a running test (the interval option),
// as netperf's demo mode prints it: the throughput over the interval that
// ended T seconds into the test.
type Interim struct {
	Test       string  // "TCP_STREAM", ...
	Brand      string  // the test's tag
	T          float64 // seconds from the start of the measured interval
	Interval   float64 // length of the interval, seconds
	Throughput float64 // over the interval
	Units      string  // of Throughput
	Ending     time.Time
	// TCP tests: segments retransmitted over the interval and the
	// congestion window at its end (summed over flows); nil otherwise.
	Retransmits, Cwnd *uint64
	// TCP tests: the smoothed RTT and the receiver's RTT estimate at the
	// interval's end in µs (the means over the flows); nil otherwise.
	RTT, RcvRTT *float64
	// TCP tests: the bytes this end sent that its peer acknowledged
	// over the interval (tcpi_bytes_acked, summed over flows): a
	// sender's goodput, where Throughput counts what it handed to its
	// sockets, which runs ahead while their send buffers fill; nil
	// otherwise.
	Acked *uint64
}

// interimBase is what every interim report of the test shares.
func (r *run) interimBase() Interim {
	return Interim{Test: r.spec.Workload.String(), Brand: r.spec.Brand, Units: r.units()}
}

// interimEvery is how often watchInterim looks for new samples.
const interimEvery = 50 * time.Millisecond

// watchInterim reports each interim sample the loops publish (summed over
// the flows), until done is closed (and then the ones taken at the very
// end).
func watchInterim(ivs []*workload.Interim, base Interim, done <-chan struct{}, report func(Interim)) {
	t := time.NewTicker(interimEvery)
	defer t.Stop()
	start := time.Now()
	sent := 0
	flush := func() {
		ss := combineSamples(ivs)
		for ; sent < len(ss); sent++ {
			p := base
			p.T, p.Interval, p.Throughput = sampleRate(ss, sent, base.Units)
			p.Ending = start.Add(ss[sent].At)
			var tcp result.Sample
			sampleTCP(&tcp, ss, sent)
			p.Retransmits, p.Cwnd, p.RTT, p.RcvRTT = tcp.Retransmits, tcp.Cwnd, tcp.RTT, tcp.RcvRTT
			p.Acked = ackedOver(ss, sent)
			report(p)
		}
	}
	for {
		select {
		case <-done:
			flush()
			return
		case <-t.C:
			flush()
		}
	}
}

// ackedOver is the bytes acknowledged over the interval ending at sample
// i, nil when the sample has no TCP figures.
func ackedOver(ss []workload.Sample, i int) *uint64 {
	if !ss[i].TCP {
		return nil
	}
	n := ss[i].Acked
	if i > 0 && ss[i-1].TCP {
		n -= min(n, ss[i-1].Acked)
	}
	return &n
}

// sampleRate is the throughput over the interval ending at sample i: the
// end, the interval's length in seconds and the rate in units.
func sampleRate(ss []workload.Sample, i int, units string) (t, interval, rate float64) {
	var prevAt time.Duration
	var prevCount uint64
	if i > 0 {
		prevAt, prevCount = ss[i-1].At, ss[i-1].Count
	}
	d := (ss[i].At - prevAt).Seconds()
	t = ss[i].At.Seconds()
	if d <= 0 {
		return t, d, 0
	}
	n := float64(ss[i].Count - prevCount)
	if units == "10^6bits/s" {
		return t, d, n * 8 / 1e6 / d
	}
	return t, d, n / d
}

// combineSamples sums the interim samples of several flows: sample k of
// the result is every flow's sample k (they share one start, so their k-th
// interval boundaries coincide), at the latest of their times. Only the
// samples every flow has taken are combined.
func combineSamples(ivs []*workload.Interim) []workload.Sample {
	if len(ivs) == 1 {
		return ivs[0].Samples()
	}
	var out []workload.Sample
	for i, iv := range ivs {
		ss := iv.Samples()
		if i == 0 {
			out = append(out, ss...)
			continue
		}
		if len(ss) < len(out) {
			out = out[:len(ss)]
		}
		for k := range out {
			out[k].At = max(out[k].At, ss[k].At)
			out[k].Count += ss[k].Count
			out[k].Retrans += ss[k].Retrans
			out[k].Cwnd += ss[k].Cwnd
			out[k].Acked += ss[k].Acked
			out[k].RTTSum += ss[k].RTTSum
			out[k].RTTConns += ss[k].RTTConns
			out[k].RcvRTTSum += ss[k].RcvRTTSum
			out[k].RcvRTTConns += ss[k].RcvRTTConns
			out[k].TCP = out[k].TCP && ss[k].TCP
		}
	}
	return out
}
