package client

import (
	"cmp"

	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// build turns the flows' counts into a result: one result.Flow per flow
// and their aggregate at the top. Figures that need the server's counts or
// the CPU measurement are added by figures.
func (r *run) build(w *worker) *result.Result {
	r.captureDetail(w)
	if r.spec.Workload.Bidir {
		return r.buildBidir(w)
	}
	s := &r.spec
	res := &result.Result{
		Test:    s.Workload.String(),
		Brand:   s.Brand,
		Units:   r.units(),
		Errors:  map[string]uint64{},
		Interim: []result.Sample{},
		Flows:   []*result.Flow{},

		ServerEnv: r.ready.Server.Env,
	}
	if !w.start.IsZero() {
		res.Start = float64(w.start.UnixNano()) / 1e9
	}
	var hists []*result.Result
	for _, f := range w.flows {
		fl := r.buildFlow(f)
		res.Flows = append(res.Flows, fl)
		c := f.counts()
		res.Add(result.Totals{Transactions: fl.Transactions, Discarded: fl.Discarded, BytesSent: fl.BytesSent,
			BytesReceived: fl.BytesReceived, SendCalls: c.SendCalls, RecvCalls: c.RecvCalls, Drained: c.Drained,
			Elapsed: fl.Elapsed, Errors: fl.Errors})
		hists = append(hists, &result.Result{Hist: fl.Hist})
	}
	if s.Workload.RR() {
		if len(hists) == 1 {
			res.Hist = hists[0].Hist
		} else if h, err := result.MergeHist(hists); err == nil {
			res.Hist = h
		}
		if res.Hist != nil {
			res.Latency = result.LatencyOf(res.Hist)
		}
	}
	res.StartSkew = result.Skew([]float64{0}, [][]*result.Flow{res.Flows})
	res.FirstSkew = result.FirstSkew([]float64{0}, [][]*result.Flow{res.Flows})
	if len(w.flows) > 0 {
		res.LocalAddress, res.RemoteAddress = w.flows[0].addresses()
	}
	var ivs []*workload.Interim
	for i, f := range w.flows {
		if l := f.base(); l != nil && l.Interim != nil {
			ivs = append(ivs, l.Interim)
			res.Flows[i].Interim = samplesOf(l.Interim.Samples(), res.Units)
		}
	}
	if len(ivs) > 0 {
		res.Interim = append(res.Interim, samplesOf(combineSamples(ivs), res.Units)...)
	}
	res.Throughput = r.throughput(res)
	res.Config = r.config(w)
	r.censored(res, w)
	r.addTCP(res, w)
	r.addMPTCP(res, w)
	r.addZeroCopy(res, w)
	r.addSchedule(res, w)
	return res
}

// buildFlow is one flow's own figures.
func (r *run) buildFlow(f *flow) *result.Flow {
	c := f.counts()
	fl := &result.Flow{
		Index:         f.index,
		Test:          r.spec.Workload.String(),
		Units:         r.units(),
		Elapsed:       c.Elapsed.Seconds(),
		Transactions:  c.Transactions,
		Discarded:     c.Discarded,
		BytesSent:     c.BytesSent,
		BytesReceived: c.BytesReceived,
		Connects:      c.Connects,
		Errors:        c.Errors.Map(),
		DataPort:      f.dataPort,
		Interim:       []result.Sample{},
	}
	if c.Lost > 0 {
		fl.Errors["timeout"] += c.Lost
	}
	fl.Hist = f.hist()
	if fl.Hist != nil {
		fl.Latency = result.LatencyOf(fl.Hist)
	}
	began := c.Began.Seconds()
	fl.Began = &began
	if c.Transactions > 0 || c.BytesSent > 0 || c.BytesReceived > 0 {
		first := c.First.Seconds()
		fl.First = &first
	}
	fl.LocalAddress, fl.RemoteAddress = f.addresses()
	if f.local.IsValid() && !r.spec.Workload.PerTransaction { // one port per connection
		fl.LocalPort = int(f.local.Port())
	}
	if err := f.err(); err != nil {
		fl.Error = err.Error()
	}
	fl.Throughput = flowThroughput(r.spec.Workload, fl)
	return fl
}

// flowThroughput is one flow's throughput: transactions per second, or for
// streams 10^6 bits/s of what its receiver counted (the server's count of
// its connection when known, else what was sent).
func flowThroughput(w *spec.Workload, fl *result.Flow) float64 {
	c := counted{elapsed: fl.Elapsed, transactions: fl.Transactions, sent: fl.BytesSent, received: fl.BytesReceived}
	if fl.Remote != nil {
		c.remoteReceived, c.haveRemote = fl.Remote.BytesReceived, true
	}
	return c.throughput(w)
}

// throughput sets each flow's own figure (flowThroughput: netperf's, over
// its own interval) and returns the test's, from the top-level fields
// (topThroughput).
func (r *run) throughput(res *result.Result) float64 {
	k := r.spec.Workload
	if k.ClientSends() && k.PerFlowRemote() && res.Remote != nil && len(res.Flows) == 1 && res.Flows[0].Remote == nil {
		// A server that did not say which connection was which.
		res.Flows[0].Remote = &result.FlowRemote{BytesReceived: res.Remote.BytesReceived}
	}
	for _, fl := range res.Flows {
		fl.Throughput = flowThroughput(r.spec.Workload, fl)
	}
	return topThroughput(k, res)
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
		Flows:                   s.FlowCount(),
		Multiplexed:             w.mux != nil,
		Client:                  r.opt.ClientName,
		File:                    s.File,
	}
	if k := s.Workload; k.Bidir {
		cfg.Connections = max(s.Connections, 1)
	}
	if s.Workload.Accepts(spec.OptProtocol) {
		cfg.Protocol = cmp.Or(s.Protocol, spec.ProtocolTCP)
	}
	arrivalConfig(s, &cfg)
	if pr := s.LocalPortRange; pr != nil {
		cfg.LocalPorts = []int{pr.Lo, pr.Hi}
	}
	if s.NoControl {
		cfg.Port = 0
		cfg.DataPort = s.DataPort
	}
	if s.Workload.Messages {
		cfg.Request, cfg.Response = s.Request, s.Response
	}
	if s.Workload.Accepts(spec.OptTimeout) {
		cfg.Timeout = s.Timeout.Seconds()
	}
	if k := s.Workload; k.Bulk {
		// The sizes in use on each end: this end's from its loops, the
		// server's from Ready.
		if k.ClientSends() {
			cfg.SendSize, cfg.RecvSize = w.sendSize, r.ready.RecvSize
		} else {
			cfg.SendSize, cfg.RecvSize = r.ready.SendSize, w.recvSize
		}
	}
	knobConfig(&cfg, &s.Knobs)
	cfg.LocalSendBuffer, cfg.LocalRecvBuffer = w.granted.Send, w.granted.Recv
	if len(w.flows) > 0 && w.mux == nil {
		cfg.LocalSendBufferEnd, cfg.LocalRecvBufferEnd = w.flows[0].final.Send, w.flows[0].final.Recv
	}
	return cfg
}

func familyName(w *worker) string {
	switch {
	case w.kind.Unix:
		return unixFamily
	case len(w.flows) == 0 || w.flows[0].peer.Addr().Is4():
		return "inet"
	}
	return "inet6"
}

// addresses are the flow's local and remote addresses as a result gives
// them: IP addresses without ports, or UNIX domain names.
func (f *flow) addresses() (local, remote string) {
	if f.local.IsValid() {
		local = f.local.Addr().String()
	}
	if f.peer.IsValid() {
		remote = f.peer.Addr().String()
	}
	if f.localName != "" {
		local = f.localName
	}
	if f.peerName != "" {
		remote = f.peerName
	}
	return local, remote
}

// addRemote puts the server's counts into the result, and each
// connection's counts into its flow.
func (r *run) addRemote(res *result.Result, rr *proto.Results) {
	if r.bidir[0] != nil {
		r.addRemoteBidir(res, rr)
		return
	}
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
	byPeer := map[string]*proto.ConnCounts{}
	for i := range rr.Conns {
		byPeer[rr.Conns[i].Peer] = &rr.Conns[i]
	}
	for i, fl := range res.Flows {
		if !r.spec.Workload.PerFlowRemote() || r.w == nil || i >= len(r.w.flows) {
			break
		}
		if c := byPeer[r.w.flows[i].localKey()]; c != nil {
			fl.Remote = &result.FlowRemote{Transactions: c.Transactions, BytesSent: c.BytesSent, BytesReceived: c.BytesReceived,
				RecvCalls: c.RecvCalls, SendCalls: c.SendCalls}
		}
	}
	r.addRemoteTCP(res, rr)
	res.Config.RemoteCPUAffinity = rr.Affinity
	r.remoteCPU = rr.CPU
	r.remoteFastOpen = rr.FastOpenAccepted
}
