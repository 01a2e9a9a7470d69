package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

func startServer(t *testing.T, th *workload.Threads) netip.AddrPort {
	t.Helper()
	srv := server.New(server.Config{Version: "test", Threads: th})
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return netip.MustParseAddrPort(a.String())
}

// TestCancel: cancelling a long test stops it within 200 ms, ends the
// server session cleanly (the server's counts come back) and keeps what was
// measured.
func TestCancel(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []*spec.Workload{spec.TCPRR, spec.TCPCRR, spec.UDPRR} {
		s := spec.Default(w)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration = 30 * time.Second
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		res, err := client.Run(ctx, s, client.Options{Threads: th})
		took := time.Since(start)
		var te *client.TestError
		if !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
			t.Fatalf("%v: got %v, want a TestError wrapping context.Canceled", w, err)
		}
		if took > 300*time.Millisecond+200*time.Millisecond {
			t.Errorf("%v: stopped %v after the cancel, want < 200ms", w, took-300*time.Millisecond)
		}
		if res == nil || res.Transactions == 0 || res.Remote == nil {
			t.Fatalf("%v: partial result lost: %+v", w, res)
		}
		if res.Elapsed < 0.25 || res.Elapsed > 0.5 {
			t.Errorf("%v: elapsed %v, want about 0.3 s", w, res.Elapsed)
		}
		if res.Remote.Transactions != res.Transactions+res.Discarded {
			t.Errorf("%v: server answered %d, client counted %d + %d", w, res.Remote.Transactions, res.Transactions, res.Discarded)
		}
	}
}

// TestProgress: a watcher sees the counts grow while the test runs, on a
// thread per flow and with flows multiplexed on epoll threads alike.
func TestProgress(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, tc := range []struct {
		w     *spec.Workload
		flows int
	}{
		{spec.TCPRR, 1},
		{spec.TCPRR, spec.ThreadedFlows + 4},
		{spec.TCPCRR, spec.ThreadedFlows + 4},
	} {
		t.Run(fmt.Sprintf("%v/%d", tc.w, tc.flows), func(t *testing.T) {
			s := spec.Default(tc.w)
			s.Host, s.Port = ap.Addr().String(), int(ap.Port())
			s.Duration, s.Flows = 700*time.Millisecond, tc.flows
			if s.Multiplexed() != (tc.flows > spec.ThreadedFlows) {
				t.Fatalf("%d flows: multiplexed %v", tc.flows, s.Multiplexed())
			}
			var got []client.Progress
			var mu sync.Mutex
			res, err := client.Run(context.Background(), s, client.Options{Threads: th, Progress: func(p client.Progress) {
				mu.Lock()
				got = append(got, p)
				mu.Unlock()
			}})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) < 2 {
				t.Fatalf("%d progress reports in 700 ms, want at least 2", len(got))
			}
			last := got[len(got)-1]
			if last.Test != tc.w.String() || last.Total != s.Duration || last.Transactions == 0 || last.Throughput <= 0 {
				t.Errorf("last report %+v", last)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Transactions < got[i-1].Transactions || got[i].Elapsed < got[i-1].Elapsed {
					t.Errorf("progress went backwards: %+v then %+v", got[i-1], got[i])
				}
			}
			if last.Transactions > res.Transactions+res.Discarded {
				t.Errorf("progress showed %d, result %d", last.Transactions, res.Transactions)
			}
		})
	}
}

// TestCancelStreams: cancelling a long stream test stops it promptly, ends
// the session cleanly and keeps both ends' counts consistent.
func TestCancelStreams(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []*spec.Workload{spec.TCPStream, spec.TCPMaerts, spec.UDPStream} {
		s := spec.Default(w)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration = 30 * time.Second
		if w == spec.UDPStream {
			s.SendSize, s.Rate, s.RemoteRecvBuffer = 1000, 10000, 4<<20
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		res, err := client.Run(ctx, s, client.Options{Threads: th})
		took := time.Since(start)
		if !errors.Is(err, context.Canceled) || res == nil || res.Remote == nil {
			t.Fatalf("%v: got %v, result %+v", w, err, res)
		}
		if took > 300*time.Millisecond+300*time.Millisecond {
			t.Errorf("%v: stopped %v after the cancel", w, took-300*time.Millisecond)
		}
		switch w {
		case spec.TCPStream:
			if res.BytesSent == 0 || res.Remote.BytesReceived != res.BytesSent {
				t.Errorf("TCP_STREAM: sent %d, server received %d", res.BytesSent, res.Remote.BytesReceived)
			}
		case spec.TCPMaerts:
			if res.BytesReceived == 0 || res.BytesReceived+res.Drained != res.Remote.BytesSent {
				t.Errorf("TCP_MAERTS: received %d + drained %d, server sent %d", res.BytesReceived, res.Drained, res.Remote.BytesSent)
			}
		case spec.UDPStream:
			if res.UDP.Sent == 0 || *res.UDP.Received != res.UDP.Sent {
				t.Errorf("UDP_STREAM: %+v", res.UDP)
			}
		}
	}
}
