package client

import (
	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// build turns the client loop's counts into a result. Figures that need
// the server's counts or the CPU measurement are added by figures.
func (r *run) build(w *worker) *result.Result {
	s := &r.spec
	l := w.loop()
	c := &l.Result
	res := &result.Result{
		Test:          s.Workload.String(),
		Brand:         s.Brand,
		Units:         r.units(),
		Elapsed:       c.Elapsed.Seconds(),
		Transactions:  c.Transactions,
		Discarded:     c.Discarded,
		BytesSent:     c.BytesSent,
		BytesReceived: c.BytesReceived,
		SendCalls:     c.SendCalls,
		RecvCalls:     c.RecvCalls,
		Drained:       c.Drained,
		Errors:        c.Errors.Map(),
		Hist:          l.Hist,
		Interim:       []result.Sample{},
	}
	if c.Lost > 0 {
		res.Errors["timeout"] += c.Lost
	}
	res.Throughput = r.throughput(res)
	if l.Hist != nil {
		res.Latency = result.LatencyOf(l.Hist)
	}
	if w.local.IsValid() {
		res.LocalAddress = w.local.Addr().String()
	}
	if w.peer.IsValid() {
		res.RemoteAddress = w.peer.Addr().String()
	}
	if l.Interim != nil {
		ss := l.Interim.Samples()
		for i := range ss {
			t, d, v := sampleRate(ss, i, res.Units)
			res.Interim = append(res.Interim, result.Sample{T: t, Throughput: v, Interval: d})
		}
	}
	res.Config = r.config(w)
	return res
}

// throughput is netperf's figure over the measured interval: transactions
// per second for RR tests; for streams 10^6 bits/s of what the receiver
// counted (the server's count for TCP_STREAM and UDP_STREAM once its
// results are in, else what was sent, as netperf -N assumes).
func (r *run) throughput(res *result.Result) float64 {
	if res.Elapsed <= 0 {
		return 0
	}
	if !r.spec.Workload.Stream() {
		return float64(res.Transactions) / res.Elapsed
	}
	bytes := res.BytesSent
	switch {
	case r.spec.Workload == spec.TCPMaerts:
		bytes = res.BytesReceived
	case res.Remote != nil:
		bytes = res.Remote.BytesReceived
	}
	return float64(bytes) * 8 / 1e6 / res.Elapsed
}

// config is the options in force, with what the kernel and the server
// granted.
func (r *run) config(w *worker) result.Config {
	s := &r.spec
	host := s.Host
	if r.opt.Embedded {
		host = ""
	}
	cfg := result.Config{
		Host:                    host,
		Port:                    s.Port,
		DataPort:                r.ready.DataPort,
		Family:                  familyName(w),
		Duration:                s.Duration.Seconds(),
		Transactions:            s.Transactions,
		Burst:                   s.Burst,
		NoDelay:                 s.NoDelay,
		Local:                   s.Local,
		LocalPort:               s.LocalPort,
		RemoteSendBuffer:        r.ready.Buffers.Send,
		RemoteRecvBuffer:        r.ready.Buffers.Recv,
		ServerVersion:           r.ready.Server.Version,
		Bytes:                   s.Bytes,
		Rate:                    s.Rate,
		Interval:                s.Interval.Seconds(),
		FastOpen:                s.FastOpen,
		CPUUtil:                 s.CPUUtil,
		Control:                 !s.NoControl,
		CPU:                     s.CPU,
		RemoteCPU:               s.RemoteCPU,
		CPUAffinity:             w.affinity,
		SendBufferRequest:       s.SendBuffer,
		RecvBufferRequest:       s.RecvBuffer,
		RemoteSendBufferRequest: s.RemoteSendBuffer,
		RemoteRecvBufferRequest: s.RemoteRecvBuffer,
	}
	if s.NoControl {
		cfg.Port = 0
		cfg.DataPort = s.DataPort
	}
	if s.Workload.RR() {
		cfg.Request, cfg.Response = s.Request, s.Response
	}
	if s.Workload.UDP() && s.Workload.RR() {
		cfg.Timeout = s.Timeout.Seconds()
	}
	switch {
	case w.stream != nil:
		cfg.SendSize, cfg.RecvSize = w.stream.SendSize, r.ready.RecvSize
	case w.udps != nil:
		cfg.SendSize, cfg.RecvSize = w.udps.SendSize, r.ready.RecvSize
	case w.maerts != nil:
		cfg.SendSize, cfg.RecvSize = r.ready.SendSize, w.maerts.RecvSize
	}
	cfg.LocalSendBuffer, cfg.LocalRecvBuffer = w.granted.Send, w.granted.Recv
	return cfg
}

func familyName(w *worker) string {
	if w.peer.Addr().Is4() {
		return "inet"
	}
	return "inet6"
}

// addRemote puts the server's counts into the result.
func (r *run) addRemote(res *result.Result, rr *proto.Results) {
	rem := &result.Remote{
		Transactions:  rr.Transactions,
		BytesSent:     rr.BytesSent,
		BytesReceived: rr.BytesReceived,
		Accepts:       rr.Accepts,
		Elapsed:       float64(rr.ElapsedNs) / 1e9,
		Errors:        rr.Errors,
		SendCalls:     rr.SendCalls,
		RecvCalls:     rr.RecvCalls,
	}
	if rem.Errors == nil {
		rem.Errors = map[string]uint64{}
	}
	for _, p := range rr.Peers {
		rem.Peers = append(rem.Peers, p.Addr)
	}
	res.Remote = rem
	res.Config.RemoteCPUAffinity = rr.Affinity
	r.remoteCPU = rr.CPU
	r.remoteFastOpen = rr.FastOpenAccepted
}
