package result

import "math"

// Bidir is the result of a test both ways (tcp_bidir) from its two
// directions: tx, the data the client sent, counted as tcp_stream counts
// it, and rx, the data it received, counted as tcp_maerts does. Its
// throughput, counts, remote counts and TCP figures are their sums; each
// flow is the two directions of one flow (one connection, or a connection
// each way) summed; interim samples are summed sample by sample; tx and rx
// are kept whole. test names the test ("TCP_BIDIR").
func Bidir(test string, tx, rx *Result) *Result {
	out := &Result{
		Test: test, Brand: tx.Brand, Units: tx.Units, Config: tx.Config,
		Throughput: tx.Throughput + rx.Throughput,
		Errors:     map[string]uint64{}, Flows: []*Flow{}, Interim: sumSamples(tx.Interim, rx.Interim),
		Start:        math.Min(tx.Start, rx.Start),
		LocalAddress: tx.LocalAddress, RemoteAddress: tx.RemoteAddress,
		ServerEnv: tx.ServerEnv,
		Tx:        tx, Rx: rx,
	}
	out.Config.RecvSize = rx.Config.RecvSize // the client's receive size; tx's send size stays
	out.Add(tx.Totals())
	out.Add(rx.Totals())
	for _, r := range []*Result{tx, rx} {
		out.Notes = appendNew(out.Notes, r.Notes...)
		if r.Remote != nil {
			if out.Remote == nil {
				out.Remote = &Remote{Errors: map[string]uint64{}}
			}
			out.Remote.Add(r.Remote)
		}
	}
	aggregateTCP(out, []*Result{tx, rx})
	for i := range max(len(tx.Flows), len(rx.Flows)) {
		out.Flows = append(out.Flows, bidirFlow(test, i, at(tx.Flows, i), at(rx.Flows, i)))
	}
	out.StartSkew = Skew([]float64{tx.Start, rx.Start}, [][]*Flow{tx.Flows, rx.Flows})
	out.FirstSkew = FirstSkew([]float64{tx.Start, rx.Start}, [][]*Flow{tx.Flows, rx.Flows})
	bidirCPU(out, tx, rx)
	return out
}

// at is fs[i], or nil past its end.
func at(fs []*Flow, i int) *Flow {
	if i < len(fs) {
		return fs[i]
	}
	return nil
}

// bidirFlow is flow i of a test both ways from its two directions.
func bidirFlow(test string, i int, tx, rx *Flow) *Flow {
	f := &Flow{Index: i, Test: test, Units: UnitsBits, Errors: map[string]uint64{}}
	var remote *FlowRemote
	var tcps []*TCP
	var mps []*MPTCP
	for _, d := range []*Flow{tx, rx} {
		if d == nil {
			continue
		}
		f.Throughput += d.Throughput
		f.Elapsed = math.Max(f.Elapsed, d.Elapsed)
		f.BytesSent += d.BytesSent
		f.BytesReceived += d.BytesReceived
		AddErrors(f.Errors, d.Errors)
		if f.Error == "" {
			f.Error = d.Error
		}
		f.Began, f.First = earlier(f.Began, d.Began), earlier(f.First, d.First)
		if f.LocalAddress == "" {
			f.LocalAddress, f.LocalPort, f.RemoteAddress, f.DataPort = d.LocalAddress, d.LocalPort, d.RemoteAddress, d.DataPort
		}
		if d.Remote != nil {
			if remote == nil {
				remote = &FlowRemote{}
			}
			remote.BytesSent += d.Remote.BytesSent
			remote.BytesReceived += d.Remote.BytesReceived
			remote.SendCalls += d.Remote.SendCalls
			remote.RecvCalls += d.Remote.RecvCalls
			if d.Remote.TCP != nil {
				remote.TCP = MergeTCP(remote.TCP, d.Remote.TCP)
			}
		}
		tcps, mps = append(tcps, d.TCP), append(mps, d.MPTCP)
		f.Interim = sumSamples(f.Interim, d.Interim)
	}
	f.Remote, f.TCP, f.MPTCP = remote, MergeTCP(tcps...), MergeMPTCP(mps...)
	if f.Interim == nil {
		f.Interim = []Sample{}
	}
	return f
}

// earlier is the earlier of two instants, either of which may be nil.
func earlier(a, b *float64) *float64 {
	if a == nil || b != nil && *b < *a {
		return b
	}
	return a
}

// sumSamples adds two lists of interim samples taken at about the same
// instants (the two directions of one test) sample by sample, at a's
// times, each sum carrying the work of both; where one list is longer its
// samples are kept as they are, but for one of b's that would end before
// the sum's last (under load a sender's last sample ends at its last
// send, past the deadline, and the receiver may have sampled once more
// before it): its work goes into that last sample, so the times stay in
// order and no work is lost.
func sumSamples(a, b []Sample) []Sample {
	out := make([]Sample, 0, max(len(a), len(b)))
	for i := range max(len(a), len(b)) {
		switch {
		case i >= len(a) && len(out) > 0 && b[i].T <= out[len(out)-1].T:
			o := &out[len(out)-1]
			if o.Interval > 0 {
				o.Throughput += b[i].Throughput * b[i].Interval / o.Interval
			}
			o.Retransmits = addOpt(o.Retransmits, b[i].Retransmits)
		case i >= len(a):
			out = append(out, b[i])
		case i >= len(b):
			out = append(out, a[i])
		default:
			// The two directions' readings are a little apart: b's work
			// is put over a's interval, so the sum's throughput × interval
			// is the work both did.
			s := a[i]
			if s.Interval > 0 {
				s.Throughput += b[i].Throughput * b[i].Interval / s.Interval
			} else {
				s.Throughput += b[i].Throughput
			}
			s.Retransmits = addOpt(s.Retransmits, b[i].Retransmits)
			s.Cwnd = addOpt(s.Cwnd, b[i].Cwnd)
			out = append(out, s)
		}
	}
	return out
}

// addOpt adds two optional counts (nil: not known).
func addOpt(a, b *uint64) *uint64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	v := *a + *b
	return &v
}

// bidirCPU puts together the CPU figures of two directions measured over
// one window, when both have them (a connection per direction: two
// tests, each measuring its own): the machine's utilisation is one
// reading (their mean), the threads' CPU adds up, and a service demand is
// CPU over all the work, which the directions' own give back (for the
// machine's: the same CPU over each one's rate, so 1/(1/a + 1/b); for the
// threads': their CPU times over the summed work).
func bidirCPU(out, tx, rx *Result) {
	out.SDUnits = tx.SDUnits
	out.LocalCPUCount, out.RemoteCPUCount = tx.LocalCPUCount, tx.RemoteCPUCount
	out.LocalCPU, out.RemoteCPU = mean(tx.LocalCPU, rx.LocalCPU), mean(tx.RemoteCPU, rx.RemoteCPU)
	out.LocalSD, out.RemoteSD = harmonic(tx.LocalSD, rx.LocalSD), harmonic(tx.RemoteSD, rx.RemoteSD)
	out.LocalProcCPU, out.RemoteProcCPU = sum(tx.LocalProcCPU, rx.LocalProcCPU), sum(tx.RemoteProcCPU, rx.RemoteProcCPU)
	wt, wr := float64(tx.BytesSent+tx.BytesReceived), float64(rx.BytesSent+rx.BytesReceived)
	out.LocalProcSD = weighted(tx.LocalProcSD, wt, rx.LocalProcSD, wr)
	out.RemoteProcSD = weighted(tx.RemoteProcSD, wt, rx.RemoteProcSD, wr)
}

func mean(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	v := (*a + *b) / 2
	return &v
}

func sum(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	v := *a + *b
	return &v
}

func harmonic(a, b *float64) *float64 {
	if a == nil || b == nil || *a <= 0 || *b <= 0 {
		return nil
	}
	v := 1 / (1 / *a + 1 / *b)
	return &v
}

func weighted(a *float64, wa float64, b *float64, wb float64) *float64 {
	if a == nil || b == nil || wa+wb <= 0 {
		return nil
	}
	v := (*a*wa + *b*wb) / (wa + wb)
	return &v
}
