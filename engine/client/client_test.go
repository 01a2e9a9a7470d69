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
	"netscript/engine/result"
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

// cancelOnWork cancels a test at the first progress report that shows it
// has counted work, so a cancel always lands inside the measured interval
// however long a loaded machine takes to set the test up.
type cancelOnWork struct {
	cancel context.CancelFunc
	once   sync.Once
	at     client.Progress // the report it cancelled at
}

func (c *cancelOnWork) progress(p client.Progress) {
	if p.Transactions > 0 || p.Bytes > 0 {
		c.once.Do(func() { c.at = p; c.cancel() })
	}
}

// serverAgrees checks the server's count of transactions against the
// client's: the client's completed and discarded ones exactly, except for
// TCP_CRR and TCP_CC, whose transaction abandoned at the deadline or the
// cancel may never have reached the server's loop (a connection still in
// its accept queue): there the server counted between the two.
func serverAgrees(w *spec.Workload, r *result.Result) error {
	got, lo, hi := r.Remote.Transactions, r.Transactions, r.Transactions+r.Discarded
	if w != spec.TCPCRR && w != spec.TCPCC {
		lo = hi
	}
	if got < lo || got > hi {
		return fmt.Errorf("%v: server answered %d, client counted %d + %d discarded", w, got, r.Transactions, r.Discarded)
	}
	return nil
}

// hangGuard bounds how long a cancelled 30 s test may take to return: far
// more than a loaded machine needs, far less than the test's duration.
const hangGuard = 15 * time.Second

// TestCancel: cancelling a long test stops it, ends the server session
// cleanly (the server's counts come back) and keeps what was measured,
// whose interval ends after the cancel and before the call returns.
func TestCancel(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []*spec.Workload{spec.TCPRR, spec.TCPCRR, spec.UDPRR} {
		s := spec.Default(w)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration = 30 * time.Second
		ctx, cancel := context.WithCancel(context.Background())
		c := &cancelOnWork{cancel: cancel}
		start := time.Now()
		res, err := client.Run(ctx, s, client.Options{Threads: th, Progress: c.progress})
		took := time.Since(start)
		cancel()
		var te *client.TestError
		if !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
			t.Fatalf("%v: got %v, want a TestError wrapping context.Canceled", w, err)
		}
		if took > hangGuard {
			t.Errorf("%v: a cancelled 30 s test took %v to return", w, took)
		}
		if res == nil || res.Transactions == 0 || res.Remote == nil {
			t.Fatalf("%v: partial result lost: %+v", w, res)
		}
		if elapsed := time.Duration(res.Elapsed * 1e9); elapsed < c.at.Elapsed || elapsed > took {
			t.Errorf("%v: measured %v; the cancel came at %v into it and the call took %v", w, elapsed, c.at.Elapsed, took)
		}
		if err := serverAgrees(w, res); err != nil {
			t.Error(err)
		}
	}
}

// TestProgress: a watcher sees the counts grow while the test runs, on a
// thread per flow and with flows multiplexed on epoll threads alike. The
// test is long and is cancelled once three reports have shown work, so
// how many reports a loaded machine fits in a given time does not matter;
// no report comes after Run has returned.
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
			s.Duration, s.Flows = 30*time.Second, tc.flows
			if s.Multiplexed() != (tc.flows > spec.ThreadedFlows) {
				t.Fatalf("%d flows: multiplexed %v", tc.flows, s.Multiplexed())
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []client.Progress
			var mu sync.Mutex
			returned := false
			res, err := client.Run(ctx, s, client.Options{Threads: th, Progress: func(p client.Progress) {
				mu.Lock()
				defer mu.Unlock()
				if returned {
					t.Error("a progress report after Run returned")
				}
				got = append(got, p)
				if working := len(got) >= 3 && got[len(got)-3].Transactions > 0; working {
					cancel()
				}
			}})
			mu.Lock()
			defer mu.Unlock()
			returned = true
			if !errors.Is(err, context.Canceled) || res == nil {
				t.Fatalf("got %v, %+v; want the cancelled test's result", err, res)
			}
			if len(got) < 3 {
				t.Fatalf("%d progress reports before the cancel, want at least 3", len(got))
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

// TestCancelStreams: cancelling a long stream test stops it, ends the
// session cleanly and keeps both ends' counts consistent.
func TestCancelStreams(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []*spec.Workload{spec.TCPStream, spec.TCPMaerts, spec.UDPStream} {
		s := spec.Default(w)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration = 30 * time.Second
		if w == spec.UDPStream {
			// Slow enough that the receive buffer (416 KiB of the 4 MiB
			// asked for at net.core.rmem_max's default: 184 of these
			// datagrams) holds over half a second of them, so a server
			// thread starved meanwhile loses none.
			s.SendSize, s.Rate, s.RemoteRecvBuffer = 1000, 300, 4<<20
		}
		ctx, cancel := context.WithCancel(context.Background())
		c := &cancelOnWork{cancel: cancel}
		start := time.Now()
		res, err := client.Run(ctx, s, client.Options{Threads: th, Progress: c.progress})
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.Canceled) || res == nil || res.Remote == nil {
			t.Fatalf("%v: got %v, result %+v", w, err, res)
		}
		if took > hangGuard {
			t.Errorf("%v: a cancelled 30 s test took %v to return", w, took)
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
