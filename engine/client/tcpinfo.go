package client

import (
	"context"
	"errors"
	"net/netip"
	"strings"

	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// applyKnobs sets the test's socket knobs on one of this end's data
// sockets (or a probe like them) before the measured interval, so a knob
// the kernel refuses fails the test before any traffic.
func applyKnobs(s *spec.Spec, fd, family int) error {
	if !s.Knobs.Given() {
		return nil
	}
	k := s.Workload
	return s.Knobs.Apply(fd, family, !k.Datagram, !k.Bulk || k.ClientSends(), "client")
}

// readsTCP reports whether this test's flows read TCP_INFO: every TCP
// test with a connection per flow, and tcp_crr with tcp_info=True.
func readsTCP(s *spec.Spec) bool {
	k := s.Workload
	return !k.Datagram && !k.Unix && (!k.PerTransaction || s.Knobs.TCPInfo)
}

// addTCP puts the client's TCP_INFO figures into each flow and, summed,
// at the top of the result.
func (r *run) addTCP(res *result.Result, w *worker) {
	if !readsTCP(&r.spec) {
		return
	}
	var all result.TCPSums
	for i, f := range w.flows {
		c := f.counts()
		if i < len(res.Flows) {
			res.Flows[i].TCP = result.TCPOf(&c.TCP)
		}
		all.Merge(&c.TCP)
	}
	res.TCP = result.TCPOf(&all)
}

// beginTCP takes the start-of-interval TCP_INFO readings of the flows
// that keep one connection (outside their loops).
func (w *worker) beginTCP(f *flow) {
	w.beginMPTCP(f)
	if !w.tcp || f.fd < 0 {
		return
	}
	f.tcp.Begin(f.fd)
	base, ok := f.tcp.StartRetrans()
	if !ok {
		return
	}
	f.retrBase.Store(uint64(base) | 1<<32) // published for the progress line
	if l := f.base(); l != nil && l.Interim != nil {
		l.Interim.TCP = &workload.InterimTCP{FD: f.fd, Base: base, AckedBase: f.tcp.StartAcked()}
	}
}

// retransmitsSoFar is what the flows' connections have retransmitted
// since the start, read from the progress watcher's goroutine (off the
// data path); false before any flow has its start reading.
func (w *worker) retransmitsSoFar(r *sock.TCPReader) (uint64, bool) {
	var total uint64
	known := false
	for _, f := range w.flows {
		b := f.retrBase.Load()
		if b == 0 || f.fd < 0 {
			continue
		}
		if retrans, _, ok := r.Retrans(f.fd); ok {
			total += uint64(retrans - uint32(b))
			known = true
		}
	}
	return total, known
}

// withRetransmits adds the retransmits so far to each progress report.
func (w *worker) withRetransmits(report func(Progress)) func(Progress) {
	if !w.tcp {
		return report
	}
	var r sock.TCPReader
	return func(p Progress) {
		if n, ok := w.retransmitsSoFar(&r); ok {
			p.Retransmits = &n
		}
		report(p)
	}
}

// sampleTCP adds the TCP figures of sample i to s: the retransmits over
// its interval and the congestion window at its end, summed over flows,
// and the smoothed RTT and the receiver's RTT estimate at its end, the
// means over the flows.
func sampleTCP(s *result.Sample, ss []workload.Sample, i int) {
	if !ss[i].TCP {
		return
	}
	retr := uint64(ss[i].Retrans)
	if i > 0 && ss[i-1].TCP {
		retr -= min(retr, uint64(ss[i-1].Retrans))
	}
	cwnd := uint64(ss[i].Cwnd)
	s.Retransmits, s.Cwnd = &retr, &cwnd
	if n := ss[i].RTTConns; n > 0 {
		rtt := float64(ss[i].RTTSum) / float64(n)
		s.RTT = &rtt
	}
	if n := ss[i].RcvRTTConns; n > 0 {
		rtt := float64(ss[i].RcvRTTSum) / float64(n)
		s.RcvRTT = &rtt
	}
}

// endTCP takes the end readings into the flow's counts.
func (w *worker) endTCP(f *flow) {
	if w.tcp && f.fd >= 0 {
		f.tcp.End(f.fd, &f.counts().TCP)
	}
	w.endMPTCP(f)
}

// errTCPInfoRefused is do's answer when the server refused the Setup
// because it does not know Setup.TCPInfo (a release before it): Run asks
// again without it.
var errTCPInfoRefused = errors.New("the server does not know TCP_INFO")

// runWithout runs the test again without asking for the server's TCP_INFO.
func runWithout(ctx context.Context, s spec.Spec, opt Options, ctrlAddr netip.AddrPort, beats bool) (*result.Result, error) {
	opt.noTCP = true
	return runOnce(ctx, s, opt, ctrlAddr, beats)
}

// addRemoteTCP puts the server's TCP_INFO figures into result.remote.tcp
// and each flow's remote.tcp; a server that did not report them leaves
// them None, and a note says why.
func (r *run) addRemoteTCP(res *result.Result, rr *proto.Results) {
	if z := rr.ZeroCopy; z != nil && r.spec.Knobs.ZeroCopy && r.spec.Workload.ServerSends {
		res.ZeroCopy = &result.ZeroCopy{Sends: z.Sends, Completed: z.Completed, Copied: z.Copied}
	}
	if !readsTCP(&r.spec) || res.Remote == nil {
		return
	}
	if r.noTCP {
		res.Remote.Unreported = append(res.Remote.Unreported, "tcp")
		res.Notes = append(res.Notes, "remote.tcp not reported: the server is of a release that does not report TCP_INFO")
		return
	}
	res.Remote.TCP = result.TCPOf(rr.TCP.Result())
	byPeer := map[string]*proto.ConnCounts{}
	for i := range rr.Conns {
		byPeer[rr.Conns[i].Peer] = &rr.Conns[i]
	}
	for i, fl := range res.Flows {
		if fl.Remote == nil || r.w == nil || i >= len(r.w.flows) {
			continue
		}
		if c := byPeer[r.w.flows[i].localKey()]; c != nil {
			fl.Remote.TCP = result.TCPOf(c.TCP.Result())
		}
	}
}

// npTCP marks remote.tcp unreported against a netserver, which has no way
// to send its TCP_INFO (npNote says so).
func (r *run) npTCP(res *result.Result) {
	if readsTCP(&r.spec) {
		res.Remote.Unreported = append(res.Remote.Unreported, "tcp")
	}
}

// knobConfig reports the knobs in force in config.
func knobConfig(cfg *result.Config, k *sock.Knobs) {
	cfg.Congestion, cfg.MaxPacingRate, cfg.NotsentLowat, cfg.MSS, cfg.BusyPoll = k.Congestion, k.MaxPacingRate, k.NotsentLowat, k.MSS, k.BusyPoll
	cfg.Cork, cfg.QuickAck, cfg.TCPInfo = k.Cork, k.QuickAck, k.TCPInfo
	if k.HasTOS {
		tos := k.TOS
		cfg.TOS = &tos
	}
}

// addZeroCopy sums the flows' MSG_ZEROCOPY counts into result.zerocopy
// (tcp_maerts's come from the server: addRemoteTCP).
func (r *run) addZeroCopy(res *result.Result, w *worker) {
	if !r.spec.Knobs.ZeroCopy || r.spec.Workload.ServerSends {
		return
	}
	z := &result.ZeroCopy{}
	for _, f := range w.flows {
		c := f.counts().ZeroCopy
		z.Sends, z.Completed, z.Copied = z.Sends+c.Sends, z.Completed+c.Completed, z.Copied+c.Copied
	}
	res.ZeroCopy = z
}

// knobRefused is the server's refusal of a knob (sock.KnobError's text,
// which names the option, the end and the errno) as the error itself, or
// nil for any other error.
func knobRefused(err error) error {
	var re *proto.RemoteError
	if !errors.As(err, &re) {
		return nil
	}
	if name, _, ok := strings.Cut(re.Message, ": the server's kernel refused it"); ok && !strings.Contains(name, " ") {
		return errors.New(re.Message)
	}
	return nil
}

// setupKnobs are the knobs the server must set (nil if none): tcp_info
// travels as Setup.TCPInfo, and zerocopy matters only to a server that
// sends, so a test with neither asks an old server for nothing it lacks.
func setupKnobs(s *spec.Spec) *proto.Knobs {
	if !s.Knobs.Given() && !(s.Knobs.ZeroCopy && s.Workload.ServerSends) {
		return nil
	}
	return proto.KnobsFrom(&s.Knobs)
}
