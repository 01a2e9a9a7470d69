package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/client/netservertest"
	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

// npSpec is a test of w against the netserver at addr:port.
func npSpec(w *spec.Workload, addr string, port int) spec.Spec {
	s := spec.Default(w)
	s.Host, s.Port, s.Server = addr, port, spec.ServerNetserver
	s.Duration = time.Second
	return s
}

// npRun runs s, failing t on an error.
func npRun(t *testing.T, s spec.Spec) *result.Result {
	t.Helper()
	res, err := client.Run(context.Background(), s, client.Options{})
	if err != nil {
		t.Fatalf("%s: %v", s.Workload.Name, err)
	}
	if res.Remote == nil {
		t.Fatalf("%s: no remote figures", s.Workload.Name)
	}
	return res
}

// TestNetserverWorkloads runs every workload against a real netserver and
// checks that the two ends' counts agree as netserver's results say.
func TestNetserverWorkloads(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	for _, w := range spec.Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			s := npSpec(w, "127.0.0.1", port)
			if w.Unix {
				npRefused(t, s, "test "+w.Name)
				return
			}
			if w.PerTransaction {
				// A connection per transaction runs until netserver's
				// timer (the length + 4 s) unless it ends by a count.
				s.Duration, s.Transactions = 0, 300
			}
			res := npRun(t, s)
			rem := res.Remote
			switch {
			case w.Bidir:
				checkNetserverBidir(t, res)
			case w.PerTransaction:
				if res.Transactions != 300 || rem.Transactions != 300 {
					t.Errorf("transactions %d, netserver counted %d, want 300 both", res.Transactions, rem.Transactions)
				}
			case w.RR():
				// A request in flight at the deadline was answered and
				// counted by netserver, not by the client.
				if rem.Transactions != res.Transactions+res.Discarded || res.Transactions == 0 {
					t.Errorf("transactions %d + %d discarded, netserver counted %d", res.Transactions, res.Discarded, rem.Transactions)
				}
			case w.ClientSends() && !w.Datagram:
				if rem.BytesReceived != res.BytesSent || res.BytesSent == 0 {
					t.Errorf("sent %d bytes, netserver received %d", res.BytesSent, rem.BytesReceived)
				}
			case w.ServerSends:
				// netserver's timer interrupts its last send, and a send
				// that moved only part of its buffer is not counted.
				got := res.BytesReceived + res.Drained
				if got < rem.BytesSent || got-rem.BytesSent >= uint64(res.Config.SendSize) || res.BytesReceived == 0 {
					t.Errorf("received %d + %d drained bytes, netserver sent %d in sends of %d", res.BytesReceived, res.Drained, rem.BytesSent, res.Config.SendSize)
				}
			default: // udp_stream
				u := res.UDP
				if u == nil || u.Received == nil || *u.Received != rem.RecvCalls || rem.RecvCalls > u.Sent || rem.RecvCalls == 0 {
					t.Errorf("udp %+v, netserver received %d datagrams", u, rem.RecvCalls)
				}
			}
			if rem.Elapsed <= 0 || res.Elapsed <= 0 {
				t.Errorf("elapsed %v, netserver's %v", res.Elapsed, rem.Elapsed)
			}
			if len(res.Flows) != 1 || res.Flows[0].Remote == nil {
				t.Errorf("flows %+v: want one with its netserver's counts", res.Flows)
			}
			if !hasNote(res, client.NoteNetserver) {
				t.Errorf("notes %q: none says what netserver does not report", res.Notes)
			}
			if res.RemoteProcCPU != nil || res.Config.RemoteCPUAffinity != nil {
				t.Errorf("figures netserver cannot give are not None: %v %v", res.RemoteProcCPU, res.Config.RemoteCPUAffinity)
			}
		})
	}
}

// npRefused runs s, which a netserver cannot run, and fails t unless it is
// refused before any traffic with an error that names option.
func npRefused(t *testing.T, s spec.Spec, option string) {
	t.Helper()
	res, err := client.Run(context.Background(), s, client.Options{})
	var ne *spec.NetserverUnsupportedError
	if !errors.As(err, &ne) || ne.Option != option || res != nil {
		t.Fatalf("%s: got %v (result %v), want netserver refusing option %s", s.Workload.Name, err, res != nil, option)
	}
}

// checkNetserverBidir: tcp_bidir against a netserver runs as a TCP_STREAM
// and a TCP_MAERTS on one clock, each with its netserver's counts, and its
// figures are their sums.
func checkNetserverBidir(t *testing.T, res *result.Result) {
	t.Helper()
	tx, rx := res.Tx, res.Rx
	if res.Config.Connections != 2 || tx == nil || rx == nil || tx.Remote == nil || rx.Remote == nil {
		t.Fatalf("connections %d, tx %v, rx %v: want two directions with netserver's counts", res.Config.Connections, tx != nil, rx != nil)
	}
	if tx.Remote.BytesReceived != tx.BytesSent || tx.BytesSent == 0 {
		t.Errorf("tx: sent %d bytes, netserver received %d", tx.BytesSent, tx.Remote.BytesReceived)
	}
	// netserver's timer interrupts its last send (see tcp_maerts).
	got := rx.BytesReceived + rx.Drained
	if got < rx.Remote.BytesSent || got-rx.Remote.BytesSent >= uint64(rx.Config.SendSize) || rx.BytesReceived == 0 {
		t.Errorf("rx: received %d + %d drained bytes, netserver sent %d", rx.BytesReceived, rx.Drained, rx.Remote.BytesSent)
	}
	if res.BytesSent != tx.BytesSent || res.BytesReceived != rx.BytesReceived {
		t.Errorf("bytes %d/%d, directions %d/%d", res.BytesSent, res.BytesReceived, tx.BytesSent, rx.BytesReceived)
	}
}

func hasNote(res *result.Result, s string) bool {
	for _, n := range res.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// TestNetserverCounts: tests that end by a count end there on both ends.
func TestNetserverCounts(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	s := npSpec(spec.TCPRR, "127.0.0.1", port)
	s.Duration, s.Transactions, s.Request, s.Response, s.Burst, s.NoDelay = 0, 1000, 100, 200, 3, true
	res := npRun(t, s)
	if res.Transactions != 1000 || res.Remote.Transactions != 1000 ||
		res.Remote.BytesReceived != 100*1000 || res.Remote.BytesSent != 200*1000 {
		t.Errorf("tcp_rr by count: %d transactions, netserver %+v", res.Transactions, res.Remote)
	}

	s = npSpec(spec.TCPStream, "127.0.0.1", port)
	s.Duration, s.Bytes, s.SendSize, s.RecvSize = 0, 10<<20, 1000, 4000
	res = npRun(t, s)
	if res.BytesSent != 10<<20 || res.Remote.BytesReceived != 10<<20 || res.Config.SendSize != 1000 {
		t.Errorf("tcp_stream by bytes: sent %d (send size %d), netserver received %d", res.BytesSent, res.Config.SendSize, res.Remote.BytesReceived)
	}

	s = npSpec(spec.TCPMaerts, "127.0.0.1", port)
	s.Duration, s.Bytes, s.SendSize = 0, 3000*1000, 3000 // netserver sends whole sends
	res = npRun(t, s)
	if res.BytesReceived != 3000*1000 || res.Remote.BytesSent != 3000*1000 || res.Config.SendSize != 3000 {
		t.Errorf("tcp_maerts by bytes: received %d, netserver sent %d with sends of %d", res.BytesReceived, res.Remote.BytesSent, res.Config.SendSize)
	}
}

// TestNetserverTimedCRR: a timed TCP_CRR ends on netserver's own timer,
// which the client waits for.
func TestNetserverTimedCRR(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	s := npSpec(spec.TCPCRR, "127.0.0.1", port)
	s.Duration = 500 * time.Millisecond
	s.Rate = 400 // few TIME_WAITs: the machine's table is shared with every other test
	res := npRun(t, s)
	if res.Remote.Transactions != res.Transactions+res.Discarded || res.Transactions == 0 {
		t.Errorf("transactions %d + %d discarded, netserver counted %d", res.Transactions, res.Discarded, res.Remote.Transactions)
	}
}

// TestNetserverOptions: the options netserver honours reach it.
func TestNetserverOptions(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")

	// By a count, so that a loaded machine (netserver bound to CPU 0
	// beside busy tests) makes it slower, never empty.
	s := npSpec(spec.TCPRR, "127.0.0.1", port)
	s.CPUUtil, s.Duration, s.Transactions = true, 0, 5000
	zero := 0
	s.RemoteCPU, s.RemoteRecvBuffer, s.RemoteSendBuffer = &zero, 65536, 32768
	s.Local = "127.0.0.1"
	res := npRun(t, s)
	if res.RemoteCPU == nil || *res.RemoteCPU < 0 || *res.RemoteCPU > 100 || res.RemoteCPUCount == nil || *res.RemoteCPUCount < 1 || res.RemoteSD == nil {
		t.Errorf("cpu_util: remote cpu %v over %v CPUs, sd %v", res.RemoteCPU, res.RemoteCPUCount, res.RemoteSD)
	}
	if res.LocalCPU == nil || *res.LocalCPU < 0 || *res.LocalCPU > 100 {
		t.Errorf("cpu_util: local cpu %v", res.LocalCPU)
	}
	if res.Config.RemoteRecvBuffer < 65536 || res.Config.RemoteSendBuffer < 32768 {
		t.Errorf("remote buffers granted %d/%d, asked 65536/32768", res.Config.RemoteRecvBuffer, res.Config.RemoteSendBuffer)
	}
	if res.Remote.Transactions != 5000 {
		t.Errorf("netserver counted %d transactions, want 5000", res.Remote.Transactions)
	}

	// Pacing and interim samples are the client's own.
	s = npSpec(spec.TCPRR, "127.0.0.1", port)
	s.Duration, s.Interval, s.Rate = 2*time.Second, 200*time.Millisecond, 2000
	res = npRun(t, s)
	if len(res.Interim) == 0 {
		t.Error("interval: no interim sample")
	}
	if res.Transactions > 2*2*2000 || res.Remote.Transactions != res.Transactions+res.Discarded {
		t.Errorf("rate 2000/s: %d transactions in %.1f s, netserver counted %d", res.Transactions, res.Elapsed, res.Remote.Transactions)
	}

	// Three flows, each with its own control connection, source address
	// and data port; released at one start.
	dp := socktestPorts(t, 3)
	s = npSpec(spec.TCPStream, "127.0.0.1", port)
	s.Flows, s.Locals, s.DataPorts = 3, []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}, dp
	res = npRun(t, s)
	var sum uint64
	for i, f := range res.Flows {
		if f.Remote == nil || f.Remote.BytesReceived != f.BytesSent || f.LocalAddress != s.Locals[i] || f.DataPort != dp[i] {
			t.Errorf("flow %d: %+v (remote %+v), want its own address %s and data port %d", i, f, f.Remote, s.Locals[i], dp[i])
		}
		sum += f.BytesSent
	}
	if res.Remote.BytesReceived != sum || res.StartSkew == nil {
		t.Errorf("3 flows sent %d bytes, netservers received %d", sum, res.Remote.BytesReceived)
	}

	// UDP with a source port and sizes.
	s = npSpec(spec.UDPRR, "127.0.0.1", port)
	s.Request, s.Response, s.Burst = 200, 1000, 2
	res = npRunFromUDPPort(t, &s) // sets s.LocalPort
	if res.Remote.Transactions < res.Transactions || res.Flows[0].LocalPort != s.LocalPort {
		t.Errorf("udp_rr: %d transactions from port %d, netserver counted %d", res.Transactions, res.Flows[0].LocalPort, res.Remote.Transactions)
	}

	s = npSpec(spec.UDPStream, "127.0.0.1", port)
	s.SendSize, s.RecvBuffer, s.SendBuffer = 1000, 1<<20, 1<<20
	res = npRun(t, s)
	if res.UDP == nil || res.UDP.Received == nil || res.BytesSent/1000 != res.UDP.Sent {
		t.Errorf("udp_stream: %+v", res.UDP)
	}
}

// TestNetserverIPv6 runs tests over ::1.
func TestNetserverIPv6(t *testing.T) {
	port := netservertest.Start(t, "::1")
	for _, w := range spec.Workloads() {
		if w.Unix {
			continue // no address: refused against a netserver (TestNetserverWorkloads)
		}
		s := npSpec(w, "::1", port)
		s.Family = sock.Inet6
		if w.PerTransaction {
			s.Duration, s.Transactions = 0, 100
		}
		res := npRun(t, s)
		if res.Config.Family != "inet6" || res.RemoteAddress != "::1" {
			t.Errorf("%s: family %s to %s", w.Name, res.Config.Family, res.RemoteAddress)
		}
	}
}

// TestNetserverManyFlows: more flows than get a thread each run on the
// epoll threads, each flow toward its own netserver child and data port.
func TestNetserverManyFlows(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	for _, w := range []*spec.Workload{spec.TCPRR, spec.TCPCRR} {
		s := npSpec(w, "127.0.0.1", port)
		s.Flows, s.Duration, s.Transactions = spec.ThreadedFlows+2, 0, 100
		res := npRun(t, s)
		if !res.Config.Multiplexed || len(res.Flows) != s.Flows {
			t.Fatalf("%s: multiplexed %v, %d flows", w.Name, res.Config.Multiplexed, len(res.Flows))
		}
		for i, f := range res.Flows {
			if f.Transactions != 100 || f.Remote == nil || f.Remote.Transactions != 100 {
				t.Errorf("%s flow %d: %d transactions, netserver's %+v", w.Name, i, f.Transactions, f.Remote)
			}
		}
	}
}

// TestNetserverFastOpen: TCP_CRR with fastopen asks netserver for a Fast
// Open listener; netserver does not count what it accepted, so that
// figure is None.
func TestNetserverFastOpen(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	s := npSpec(spec.TCPCRR, "127.0.0.1", port)
	s.FastOpen, s.Duration, s.Transactions = true, 0, 200
	res := npRun(t, s)
	if res.Remote.Transactions != 200 || res.FastOpen == nil || res.FastOpen.Attempted != 200 || res.FastOpen.ServerAccepted != nil {
		t.Errorf("fastopen: %d transactions, %+v", res.Remote.Transactions, res.FastOpen)
	}
}

// TestNetserverCancel: a cancelled test does not wait for netserver's
// timer.
func TestNetserverCancel(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	s := npSpec(spec.TCPCRR, "127.0.0.1", port)
	s.Duration, s.Rate = 30*time.Second, 400
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	t0 := time.Now()
	res, err := client.Run(ctx, s, client.Options{})
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("cancelled after 0.5 s, returned after %v", d)
	}
	if err == nil || !strings.Contains(err.Error(), "interrupted") || res == nil || res.Transactions == 0 {
		t.Errorf("cancelled test: %v, %v", res, err)
	}
}

// TestNetserverBidirOneConnection: netserver has no test that sends both
// ways on one connection, so tcp_bidir connections=1 against it is refused
// before any traffic, saying so; a byte count runs both directions to it.
func TestNetserverBidirOneConnection(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	s := npSpec(spec.TCPBidir, "127.0.0.1", port)
	s.Connections = 1
	npRefused(t, s, "connections=1")
	_, err := client.Run(context.Background(), s, client.Options{})
	if err == nil || !strings.Contains(err.Error(), "connections=2") {
		t.Errorf("error %v: want it to name connections=2", err)
	}

	s.Connections, s.Duration, s.Bytes = 2, 0, 2<<20
	res := npRun(t, s)
	if res.Tx.BytesSent != 2<<20 || res.Tx.Remote.BytesReceived != 2<<20 || res.Rx.BytesReceived != 2<<20 || res.Rx.Remote.BytesSent != 2<<20 {
		t.Errorf("bytes=2M: tx sent %d (netserver received %d), rx received %d (netserver sent %d)",
			res.Tx.BytesSent, res.Tx.Remote.BytesReceived, res.Rx.BytesReceived, res.Rx.Remote.BytesSent)
	}
}
