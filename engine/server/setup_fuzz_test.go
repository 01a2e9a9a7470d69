package server

import (
	"testing"

	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/spec"
)

// FuzzSetup feeds hostile Setup payloads to the server's checks: decoding
// and checking never panic, and whatever is accepted is within the bounds
// the data path relies on.
func FuzzSetup(f *testing.F) {
	for _, seed := range []string{
		`{"test":"TCP_RR","request":1,"response":1}`,
		`{"test":"TCP_STREAM","recv_size":65536,"cpu_util":true}`,
		`{"test":"TCP_MAERTS","send_size":16384,"bytes":1048576,"rate":1000}`,
		`{"test":"UDP_STREAM","recv_size":65507,"recv_buffer":1}`,
		`{"test":"TCP_CRR","request":1,"response":1,"fastopen":true,"cpu":0}`,
		`{"test":"UDP_RR","request":70000,"response":1}`,
		`{"test":"TCP_MAERTS","rate":-1}`,
		`{"test":"TCP_RR","request":1,"response":1,"cpu":-3}`,
		`{"test":"UDP_STREAM","send_size":1e9}`,
	} {
		f.Add([]byte(seed))
	}
	lim := limits.Default()
	f.Fuzz(func(t *testing.T, payload []byte) {
		var m proto.Setup
		if proto.Decode(proto.TypeSetup, payload, &m) != nil {
			return
		}
		w, err := CheckSetup(&lim, &m)
		if err != nil {
			return
		}
		max := min(spec.MaxMessage, lim.MaxMessage)
		if w.Datagram {
			max = spec.MaxDatagram
		}
		if m.SendSize < 0 || m.SendSize > max || m.RecvSize < 0 || m.RecvSize > lim.MaxMessage ||
			m.Rate < 0 || m.Rate > spec.MaxRate || m.SendBuffer < 0 || m.SendBuffer > lim.MaxBuffer ||
			m.RecvBuffer < 0 || m.RecvBuffer > lim.MaxBuffer || m.DurationNs < 0 || m.DurationNs > int64(lim.MaxDuration) ||
			(m.DataPort != 0 && (m.DataPort < lim.DataPorts.Lo || m.DataPort > lim.DataPorts.Hi)) ||
			m.Flows < 0 || m.Flows > lim.MaxFlows || !portsIn(m.DataPorts, lim.DataPorts) ||
			(w.Messages && (m.Request < 1 || m.Request > max || m.Response < 1 || m.Response > max)) ||
			(!w.Messages && (m.Request != 0 || m.Response != 0)) ||
			(m.CPU != nil && *m.CPU < 0) || (m.FastOpen && !w.Accepts(spec.OptFastOpen)) {
			t.Fatalf("accepted out-of-bounds setup %+v", m)
		}
	})
}

// portsIn reports whether every port is in r.
func portsIn(ports []int, r limits.PortRange) bool {
	for _, p := range ports {
		if p < r.Lo || p > r.Hi {
			return false
		}
	}
	return true
}
