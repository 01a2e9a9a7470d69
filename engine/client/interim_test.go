package client_test

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// work is what a sample says was done over its interval, in the result's
// counting unit: transactions, or bytes for the streams.
func work(s result.Sample, units string) float64 {
	if units == result.UnitsBits {
		return s.Throughput * s.Interval * 1e6 / 8
	}
	return s.Throughput * s.Interval
}

// near reports whether two sums of floats agree to rounding.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// counted is the flow's own count that its interim samples divide up.
func counted(w *spec.Workload, f *result.Flow) uint64 {
	switch {
	case !w.Bulk:
		return f.Transactions
	case w.Bidir:
		return f.BytesSent + f.BytesReceived
	case w.ServerSends:
		return f.BytesReceived
	}
	return f.BytesSent
}

// TestFlowInterim: with interval every flow of every workload keeps its
// own samples. Each flow's samples add up to what the flow counted, and
// over sample k the flows' work, retransmits and cwnd add up to the
// test's sample k, which the flows' combined readings give as before. A
// flow of a one-flow test has the test's samples; without interval every
// flow's list is empty.
func TestFlowInterim(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range spec.Workloads() {
		s := specFor(w, ap)
		s.Flows, s.Duration, s.Interval = 3, 400*time.Millisecond, 100*time.Millisecond
		if w == spec.UDPStream {
			s.SendSize, s.Rate = 1000, 2000 // paced: no loss to explain
		}
		res, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		if len(res.Interim) == 0 || len(res.Flows) != 3 {
			t.Fatalf("%v: %d samples, %d flows", w, len(res.Interim), len(res.Flows))
		}
		for i, f := range res.Flows {
			if len(f.Interim) < len(res.Interim) {
				t.Errorf("%v: flow %d has %d samples, the test %d", w, i, len(f.Interim), len(res.Interim))
			}
			sum, last := 0.0, 0.0
			for _, smp := range f.Interim {
				if smp.T <= last || smp.Interval <= 0 || !near(smp.T-last, smp.Interval) {
					t.Errorf("%v: flow %d: sample at %v of %v after %v", w, i, smp.T, smp.Interval, last)
				}
				last = smp.T
				sum += work(smp, res.Units)
			}
			if got := counted(w, f); !near(sum, float64(got)) {
				t.Errorf("%v: flow %d: its samples add up to %v, it counted %d", w, i, sum, got)
			}
		}
		if w.Bidir {
			var flows, test float64
			for _, f := range res.Flows {
				for _, smp := range f.Interim {
					flows += work(smp, res.Units)
				}
			}
			for _, top := range res.Interim {
				test += work(top, res.Units)
			}
			// The test's samples are the instants every flow sampled
			// (combineSamples keeps the shortest list), so under load
			// they may leave out a flow's last; never more than all.
			if test > flows*1.0001 || test <= 0 {
				t.Errorf("%v: the flows' samples add up to %v, the test's to %v", w, flows, test)
			}
		}
		for k, top := range res.Interim {
			var sum float64
			var retr, cwnd uint64
			var tcp int
			latest := 0.0
			for _, f := range res.Flows {
				smp := f.Interim[min(k, len(f.Interim)-1)]
				sum += work(smp, res.Units)
				latest = math.Max(latest, smp.T)
				if smp.Retransmits != nil && smp.Cwnd != nil {
					retr, cwnd, tcp = retr+*smp.Retransmits, cwnd+*smp.Cwnd, tcp+1
				}
			}
			// A test both ways sums each direction's samples (result's
			// sumSamples): under load a flow's two directions sample at
			// other instants than the test's, so one sample's split among
			// the flows need not be the test's; the whole is (below).
			if !w.Bidir && (!near(sum, work(top, res.Units)) || latest != top.T) {
				t.Errorf("%v: sample %d: the flows' work adds up to %v at %v, the test's is %v at %v", w, k, sum, latest, work(top, res.Units), top.T)
			}
			switch {
			case top.Retransmits == nil:
				if !w.Datagram && !w.PerTransaction && !w.Unix {
					t.Errorf("%v: sample %d has no TCP figures", w, k)
				}
			case w.Bidir:
			case tcp != 3 || *top.Retransmits != retr || *top.Cwnd != cwnd:
				t.Errorf("%v: sample %d: %d flows' TCP figures add up to %d retransmits, cwnd %d; the test's %d, %d",
					w, k, tcp, retr, cwnd, *top.Retransmits, *top.Cwnd)
			}
		}
	}

	s := specFor(spec.TCPStream, ap)
	s.Duration, s.Interval = 300*time.Millisecond, 100*time.Millisecond
	res, err := client.Run(context.Background(), s, client.Options{Threads: th})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Flows) != 1 || len(res.Interim) == 0 || !reflect.DeepEqual(res.Flows[0].Interim, res.Interim) {
		t.Errorf("one flow: its samples %+v, the test's %+v", res.Flows[0].Interim, res.Interim)
	}

	s.Flows, s.Interval = 2, 0
	res, err = client.Run(context.Background(), s, client.Options{Threads: th})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range res.Flows {
		if f.Interim == nil || len(f.Interim) != 0 {
			t.Errorf("no interval: flow %d has samples %#v", i, f.Interim)
		}
	}
}

// TestInterimAcked: a live interim report of a TCP test says how many of
// the bytes this end sent its peer acknowledged over the interval
// (tcpi_bytes_acked): a tcp_stream's add up to no more than it sent, and
// to most of it (the rest was in flight or in its send buffer at the last
// sample); a tcp_maerts client sends nothing, and none is acknowledged;
// a datagram test has none.
func TestInterimAcked(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []*spec.Workload{spec.TCPStream, spec.TCPMaerts, spec.UDPRR} {
		s := specFor(w, ap)
		s.Flows, s.Duration, s.Interval = 2, 600*time.Millisecond, 100*time.Millisecond
		var live []client.Interim
		res, err := client.Run(context.Background(), s, client.Options{Threads: th, Interim: func(i client.Interim) { live = append(live, i) }})
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		var acked uint64
		for _, p := range live {
			switch {
			case w.Datagram && p.Acked != nil:
				t.Errorf("%v: a sample with %d bytes acknowledged", w, *p.Acked)
			case !w.Datagram && p.Acked == nil:
				t.Fatalf("%v: a sample without bytes acknowledged: %+v", w, p)
			case p.Acked != nil:
				acked += *p.Acked
			}
		}
		switch w {
		case spec.TCPStream:
			if acked > res.BytesSent || acked < res.BytesSent/2 {
				t.Errorf("%v: %d bytes acknowledged over %d samples, %d sent", w, acked, len(live), res.BytesSent)
			}
		case spec.TCPMaerts:
			if acked != 0 {
				t.Errorf("%v: the receiving end had %d bytes acknowledged", w, acked)
			}
		}
	}
}
