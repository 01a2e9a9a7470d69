package client

import (
	"netscript/engine/proto"
	"netscript/engine/result"
)

// build turns the client loop's counts into a result.
func (r *run) build(w *worker) *result.Result {
	s := &r.spec
	l := w.loop()
	c := &l.Result
	res := &result.Result{
		Test:          s.Workload.String(),
		Brand:         s.Brand,
		Units:         result.UnitsTrans,
		Elapsed:       c.Elapsed.Seconds(),
		Transactions:  c.Transactions,
		Discarded:     c.Discarded,
		BytesSent:     c.BytesSent,
		BytesReceived: c.BytesReceived,
		Errors:        c.Errors.Map(),
		Hist:          l.Hist,
	}
	if c.Lost > 0 {
		res.Errors["timeout"] += c.Lost
	}
	if res.Elapsed > 0 {
		res.Throughput = float64(c.Transactions) / res.Elapsed
	}
	if l.Hist != nil {
		res.Latency = result.LatencyOf(l.Hist)
	}
	if w.local.IsValid() {
		res.LocalAddress = w.local.Addr().String()
	}
	if w.peer.IsValid() {
		res.RemoteAddress = w.peer.Addr().String()
	}
	host := s.Host
	if r.opt.Embedded {
		host = ""
	}
	res.Config = result.Config{
		Host:             host,
		Port:             s.Port,
		DataPort:         r.ready.DataPort,
		Family:           familyName(w),
		Duration:         s.Duration.Seconds(),
		Transactions:     s.Transactions,
		Request:          s.Request,
		Response:         s.Response,
		Burst:            s.Burst,
		NoDelay:          s.NoDelay,
		Local:            s.Local,
		LocalPort:        s.LocalPort,
		RemoteSendBuffer: r.ready.Buffers.Send,
		RemoteRecvBuffer: r.ready.Buffers.Recv,
		ServerVersion:    r.ready.Server.Version,
	}
	if s.Workload.UDP() {
		res.Config.Timeout = s.Timeout.Seconds()
	}
	res.Config.LocalSendBuffer, res.Config.LocalRecvBuffer = w.granted.Send, w.granted.Recv
	return res
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
	}
	if rem.Errors == nil {
		rem.Errors = map[string]uint64{}
	}
	for _, p := range rr.Peers {
		rem.Peers = append(rem.Peers, p.Addr)
	}
	res.Remote = rem
}
