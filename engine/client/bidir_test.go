package client_test

import (
	"context"
	"math"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// checkBidir holds a tcp_bidir result to its rules: each direction's
// bytes as both ends counted them (every byte the client sent read by the
// server; every byte the server sent read by the client, inside the
// interval or drained after it), and the whole as the sum of its
// directions.
func checkBidir(t *testing.T, what string, r *result.Result) {
	t.Helper()
	tx, rx := r.Tx, r.Rx
	if tx == nil || rx == nil || tx.Remote == nil || rx.Remote == nil {
		t.Fatalf("%s: no directions or no server counts: %+v", what, r)
	}
	if tx.Test != "TCP_STREAM" || rx.Test != "TCP_MAERTS" || r.Test != "TCP_BIDIR" {
		t.Errorf("%s: tests %s = %s + %s", what, r.Test, tx.Test, rx.Test)
	}
	if tx.BytesSent == 0 || tx.BytesSent != tx.Remote.BytesReceived {
		t.Errorf("%s: tx: the client sent %d, the server read %d", what, tx.BytesSent, tx.Remote.BytesReceived)
	}
	if rx.BytesReceived == 0 || rx.Remote.BytesSent != rx.BytesReceived+rx.Drained {
		t.Errorf("%s: rx: the server sent %d, the client read %d and drained %d", what, rx.Remote.BytesSent, rx.BytesReceived, rx.Drained)
	}
	if r.BytesSent != tx.BytesSent || r.BytesReceived != rx.BytesReceived || r.Drained != rx.Drained {
		t.Errorf("%s: sums: sent %d received %d drained %d; tx sent %d, rx received %d drained %d", what,
			r.BytesSent, r.BytesReceived, r.Drained, tx.BytesSent, rx.BytesReceived, rx.Drained)
	}
	if r.Remote.BytesReceived != tx.Remote.BytesReceived || r.Remote.BytesSent != rx.Remote.BytesSent {
		t.Errorf("%s: the server's sums: %+v", what, r.Remote)
	}
	if math.Abs(r.Throughput-(tx.Throughput+rx.Throughput)) > 1e-9*r.Throughput {
		t.Errorf("%s: throughput %v is not tx %v + rx %v", what, r.Throughput, tx.Throughput, rx.Throughput)
	}
	// Each direction's throughput is its receiver's count over its own
	// interval, as tcp_stream's and tcp_maerts's are.
	if want := float64(tx.Remote.BytesReceived) * 8 / 1e6 / tx.Elapsed; math.Abs(tx.Throughput-want) > 1e-9*want {
		t.Errorf("%s: tx throughput %v, want %v", what, tx.Throughput, want)
	}
	if want := float64(rx.BytesReceived) * 8 / 1e6 / rx.Elapsed; math.Abs(rx.Throughput-want) > 1e-9*want {
		t.Errorf("%s: rx throughput %v, want %v", what, rx.Throughput, want)
	}
	for i, f := range r.Flows {
		if f.BytesSent != tx.Flows[i].BytesSent || f.BytesReceived != rx.Flows[i].BytesReceived {
			t.Errorf("%s: flow %d: %d/%d, directions %d/%d", what, i, f.BytesSent, f.BytesReceived, tx.Flows[i].BytesSent, rx.Flows[i].BytesReceived)
		}
	}
}

// TestBidir: tcp_bidir both ways on one connection per flow and on one
// per direction, by time and by a byte count, with one flow and with
// several: each direction's bytes agree with both ends' counts, and the
// server saw one connection per flow, or two.
func TestBidir(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, c := range []struct {
		conns, flows int
		bytes        uint64
	}{{1, 1, 0}, {2, 1, 0}, {1, 3, 0}, {2, 2, 0}, {1, 1, 3 << 20}, {2, 1, 3 << 20}} {
		s := spec.Default(spec.TCPBidir)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration, s.Connections, s.Flows, s.Bytes = 400*time.Millisecond, c.conns, c.flows, c.bytes
		if c.bytes > 0 {
			s.Duration = 0
		}
		what := "connections=" + string(rune('0'+c.conns)) + " flows=" + string(rune('0'+c.flows))
		r, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkBidir(t, what, r)
		if r.Config.Connections != c.conns || len(r.Flows) != c.flows {
			t.Errorf("%s: config.connections %d, %d flows", what, r.Config.Connections, len(r.Flows))
		}
		if got, want := r.Remote.Accepts, uint64(c.conns*c.flows); got != want {
			t.Errorf("%s: the server accepted %d connections, want %d", what, got, want)
		}
		// One connection both ways: both directions are the same
		// socket; one each way: two sockets, two peers of the server.
		samePort := r.Tx.Flows[0].LocalPort == r.Rx.Flows[0].LocalPort
		if samePort != (c.conns == 1) || r.Tx.Flows[0].LocalPort == 0 {
			t.Errorf("%s: tx from port %d, rx at port %d", what, r.Tx.Flows[0].LocalPort, r.Rx.Flows[0].LocalPort)
		}
		if c.bytes > 0 && (r.Tx.BytesSent != c.bytes || r.Rx.BytesReceived != c.bytes) {
			t.Errorf("%s: bytes=%d: sent %d, received %d", what, c.bytes, r.Tx.BytesSent, r.Rx.BytesReceived)
		}
		if r.TCP == nil || r.Remote.TCP == nil {
			t.Errorf("%s: no TCP_INFO: %v %v", what, r.TCP, r.Remote.TCP)
		}
	}
}

// TestBidirInterim: the interim samples of a test both ways are its two
// directions' summed, sample by sample.
func TestBidirInterim(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, conns := range []int{1, 2} {
		s := spec.Default(spec.TCPBidir)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration, s.Interval, s.Connections = 600*time.Millisecond, 200*time.Millisecond, conns
		var live []client.Interim
		r, err := client.Run(context.Background(), s, client.Options{Threads: th, Interim: func(i client.Interim) { live = append(live, i) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Interim) == 0 || len(r.Interim) != len(r.Tx.Interim) {
			t.Fatalf("connections=%d: %d samples, tx %d", conns, len(r.Interim), len(r.Tx.Interim))
		}
		for i, smp := range r.Interim {
			// The sum carries both directions' work over tx's interval.
			tx, rx := r.Tx.Interim[i], r.Rx.Interim[i]
			got, want := smp.Throughput*smp.Interval, tx.Throughput*tx.Interval+rx.Throughput*rx.Interval
			if math.Abs(got-want) > 1e-6*want || smp.T != tx.T {
				t.Errorf("connections=%d: sample %d: work %v at %v, tx+rx %v at %v", conns, i, got, smp.T, want, tx.T)
			}
		}
		if len(live) == 0 || live[0].Test != "TCP_BIDIR" {
			t.Errorf("connections=%d: live samples %+v", conns, live)
		}
	}
}
