package server

import (
	"testing"

	"netscript/engine/npwire"
	"netscript/engine/spec"
)

// TestOmniWorkload: every protocol, socket type, direction and connect
// flag an omni request can combine maps, through the descriptors' traits,
// to the workload netperf runs so (netperf 2.7's omni tests), or to none.
func TestOmniWorkload(t *testing.T) {
	const both = npwire.DirSend | npwire.DirRecv
	tcp := func(dir uint32, connect bool) omniShape { return omniShape{6, npwire.NSTStream, dir, connect} }
	udp := func(dir uint32) omniShape { return omniShape{17, npwire.NSTDgram, dir, false} }
	want := map[omniShape]*spec.Workload{
		tcp(both, false):           spec.TCPRR,     // -t TCP_RR
		tcp(both, true):            spec.TCPCRR,    // -t TCP_CRR
		tcp(0, true):               spec.TCPCC,     // TCP_CC as omni: connections, no data
		tcp(npwire.DirRecv, false): spec.TCPStream, // -t TCP_STREAM: the server receives
		tcp(npwire.DirSend, false): spec.TCPMaerts, // -t TCP_MAERTS: the server sends
		udp(both):                  spec.UDPRR,     // -t UDP_RR
		udp(npwire.DirRecv):        spec.UDPStream, // -t UDP_STREAM
	}
	found := map[*spec.Workload]bool{}
	for _, proto := range []uint32{0, 6, 17, 132} {
		for _, st := range []uint32{0, npwire.NSTStream, npwire.NSTDgram, 5} {
			for _, dir := range []uint32{0, npwire.DirSend, npwire.DirRecv, both} {
				for _, connect := range []bool{false, true} {
					sh := omniShape{proto, st, dir, connect}
					got := omniWorkload(sh)
					if got != want[sh] {
						t.Errorf("%+v: %v, want %v", sh, got, want[sh])
					}
					if got != nil {
						found[got] = true
					}
				}
			}
		}
	}
	for _, w := range spec.Workloads() {
		// Netperf has no omni request for these: netserver runs no UNIX
		// domain or both-ways test for a remote client, and netperf asks
		// for TCP_SENDFILE's receiving end with DO_TCP_STREAM
		// (NetperfClassic, TestNetperfSendfile).
		if w.Unix || w.Bidir || w == spec.TCPSendfile {
			continue
		}
		if w.NetperfClassic == 0 && !found[w] {
			t.Errorf("%s: no omni request runs it", w.Name)
		}
	}
}

// TestClassicWorkload: DO_TCP_CC is TCP_CC's own classic request; no
// other request type names a workload.
func TestClassicWorkload(t *testing.T) {
	for _, c := range []struct {
		t    int32
		want *spec.Workload
	}{
		{npwire.TypeDoTCPCC, spec.TCPCC},
		{npwire.TypeDoOmni, nil},
		{npwire.TypeDoTCPCRR, nil}, // netperf 2.7 sends TCP_CRR as omni
		{0, nil},
	} {
		if got := classicWorkload(c.t); got != c.want {
			t.Errorf("request %d: %v, want %v", c.t, got, c.want)
		}
	}
}
