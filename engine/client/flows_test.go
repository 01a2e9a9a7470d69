package client_test

import (
	"context"
	"errors"
	"math"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/sock/socktest"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// specFor is a test of w against the server at ap.
func specFor(w *spec.Workload, ap netip.AddrPort) spec.Spec {
	s := spec.Default(w)
	s.Host, s.Port = ap.Addr().String(), int(ap.Port())
	return s
}

// TestFlowsCount: with transactions=N every flow does N (each flow is one
// netperf), the server counted each flow's connection exactly, and the top
// level is their sum with the latency of every transaction.
func TestFlowsCount(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, n := range []int{3, 16} { // a thread per flow, and epoll threads
		s := specFor(spec.TCPRR, ap)
		s.Flows, s.Transactions, s.Duration = n, 200, 0
		s.Request, s.Response = 100, 300
		res, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Flows) != n || res.Transactions != uint64(200*n) || res.Latency.Count != res.Transactions {
			t.Fatalf("%d flows: %d flows reported, %d transactions, latency of %d", n, len(res.Flows), res.Transactions, res.Latency.Count)
		}
		if res.Config.Flows != n || res.Config.Multiplexed != (n > spec.ThreadedFlows) {
			t.Errorf("%d flows: config %d flows, multiplexed %v", n, res.Config.Flows, res.Config.Multiplexed)
		}
		for i, f := range res.Flows {
			if f.Index != i || f.Transactions != 200 || f.BytesSent != 200*100 || f.BytesReceived != 200*300 || f.Error != "" {
				t.Errorf("%d flows: flow %d: %+v", n, i, f)
			}
			if f.Remote == nil || f.Remote.Transactions != 200 || f.Remote.BytesReceived != 200*100 {
				t.Errorf("%d flows: flow %d: the server's count of its connection is %+v", n, i, f.Remote)
			}
			if f.LocalAddress != "127.0.0.1" || f.LocalPort == 0 || f.First == nil || f.Latency.Count != 200 {
				t.Errorf("%d flows: flow %d: local %s:%d, first %v", n, i, f.LocalAddress, f.LocalPort, f.First)
			}
		}
		// The top level's throughput is its own total over its own
		// interval (the union of the flows': the longest).
		top := float64(res.Transactions) / res.Elapsed
		if res.Throughput != top || res.Remote.Transactions != res.Transactions || res.Remote.Accepts != uint64(n) {
			t.Errorf("%d flows: throughput %v (transactions / elapsed %v), server %d transactions, %d accepts", n, res.Throughput, top,
				res.Remote.Transactions, res.Remote.Accepts)
		}
	}
}

// byWork makes s end by work instead of time, per flow: transactions for
// the RR tests, bytes for the streams. Then every flow must do its share,
// where in a short window a loaded machine may give a flow no turn at all.
func byWork(s *spec.Spec) {
	s.Duration = 0
	switch {
	case s.Workload.RR():
		s.Transactions = 50
	case s.Workload == spec.UDPStream:
		s.Bytes = 100 * uint64(s.SendSize)
	default:
		s.Bytes = 1 << 20
	}
}

// TestFlowsEveryWorkload: every workload runs several flows in one test,
// each doing its share of work; both ends' counts add up per test.
func TestFlowsEveryWorkload(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range spec.Workloads() {
		s := specFor(w, ap)
		s.Flows = 3
		if w == spec.UDPStream {
			s.SendSize, s.Rate = 1000, 2000 // paced: no loss to explain
		}
		byWork(&s)
		res, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		if len(res.Flows) != 3 || res.StartSkew == nil {
			t.Fatalf("%v: %d flows, skew %v", w, len(res.Flows), res.StartSkew)
		}
		for i, f := range res.Flows {
			if f.Throughput <= 0 || f.Elapsed <= 0 || f.First == nil {
				t.Errorf("%v: flow %d did nothing: %+v", w, i, f)
			}
		}
		r := res.Remote
		switch w {
		case spec.TCPRR, spec.UDPRR:
			if r.Transactions != res.Transactions+res.Discarded {
				t.Errorf("%v: server %d, client %d + %d", w, r.Transactions, res.Transactions, res.Discarded)
			}
		case spec.TCPCRR:
			if r.Accepts < res.Transactions || r.Transactions < res.Transactions || len(r.Peers) != 1 {
				t.Errorf("%v: server %d accepts %d transactions, client %d", w, r.Accepts, r.Transactions, res.Transactions)
			}
		case spec.TCPStream:
			if r.BytesReceived != res.BytesSent || r.Accepts != 3 {
				t.Errorf("%v: server read %d, client sent %d", w, r.BytesReceived, res.BytesSent)
			}
		case spec.TCPMaerts:
			if r.BytesSent != res.BytesReceived+res.Drained {
				t.Errorf("%v: server sent %d, client read %d + %d", w, r.BytesSent, res.BytesReceived, res.Drained)
			}
		case spec.UDPStream:
			if res.UDP == nil || res.UDP.Received == nil || *res.UDP.Received != r.RecvCalls || res.UDP.Sent == 0 {
				t.Errorf("%v: udp %+v", w, res.UDP)
			}
		}
	}
}

// TestStartSkew: 16 flows of tcp_rr are released at one common start: no
// flow begins before it, each completes its first transaction after it
// began it and inside the test, and start_skew and first_skew are the
// spreads of the flows' own instants. (Each flow runs 20 transactions, so
// every one has a first.) How small the skew is (under a
// millisecond on an idle machine) is a figure of the machine's scheduling,
// not something a test can hold a loaded machine to: nsbench's flows rows
// report it.
func TestStartSkew(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	s := specFor(spec.TCPRR, ap)
	s.Flows, s.Transactions, s.Duration = 16, 20, 0
	res, err := client.Run(context.Background(), s, client.Options{Threads: th})
	if err != nil {
		t.Fatal(err)
	}
	if res.StartSkew == nil || res.FirstSkew == nil {
		t.Fatalf("start skew %v, first skew %v, although every flow completed transactions", res.StartSkew, res.FirstSkew)
	}
	t.Logf("start skew %v, first completions spread over %v",
		time.Duration(*res.StartSkew*1e9), time.Duration(*res.FirstSkew*1e9))
	began, first := [2]float64{math.Inf(1), math.Inf(-1)}, [2]float64{math.Inf(1), math.Inf(-1)}
	for _, f := range res.Flows {
		if f.Began == nil || f.First == nil || *f.Began < 0 || *f.First < *f.Began || *f.First > f.Elapsed || f.Elapsed > res.Elapsed {
			t.Fatalf("flow %d: began %v, first completed %v, of a %v s window", f.Index, f.Began, f.First, res.Elapsed)
		}
		began = [2]float64{min(began[0], *f.Began), max(began[1], *f.Began)}
		first = [2]float64{min(first[0], *f.First), max(first[1], *f.First)}
	}
	if *res.StartSkew != began[1]-began[0] || *res.FirstSkew != first[1]-first[0] {
		t.Errorf("start skew %v, first skew %v; the flows' instants spread over %v and %v",
			*res.StartSkew, *res.FirstSkew, began[1]-began[0], first[1]-first[0])
	}
}

// threadCount is the process's number of OS threads.
func threadCount() int {
	ents, _ := os.ReadDir("/proc/self/task")
	return len(ents)
}

// TestThousandFlows: 1000 flows of tcp_rr and of tcp_crr run on a few
// threads, every flow counted, both ends agreeing. Run by count, every
// flow must do exactly its share, however a loaded machine schedules the
// epoll threads; run for a time (ended by the deadline), what each flow
// managed is not certain, but the flows and the server still account for
// every transaction.
func TestThousandFlows(t *testing.T) {
	if testing.Short() {
		t.Skip("2000 sockets")
	}
	th := &workload.Threads{}
	ap := startServer(t, th)
	const per = 10
	for _, w := range []*spec.Workload{spec.TCPRR, spec.TCPCRR} {
		for _, timed := range []bool{false, true} {
			before := threadCount()
			s := specFor(w, ap)
			s.Flows, s.Transactions, s.Duration = 1000, per, 0
			if timed {
				// Long enough that a loaded machine completes some of
				// 1000 flows' transactions: 0.3 s once ended with all
				// 1000 in flight (both CPUs busy with other tests).
				s.Transactions, s.Duration = 0, 2*time.Second
			}
			res, err := client.Run(context.Background(), s, client.Options{Threads: th})
			if err != nil {
				t.Fatalf("%v: %v", w, err)
			}
			if grew := threadCount() - before; grew > 40 {
				t.Errorf("%v: the process grew by %d threads for 1000 flows", w, grew)
			}
			short := 0
			var sum uint64
			for _, f := range res.Flows {
				if !timed && f.Transactions != per {
					short++
				}
				sum += f.Transactions
			}
			if len(res.Flows) != 1000 || short > 0 || sum != res.Transactions || !timed && res.Transactions != 1000*per {
				t.Errorf("%v: %d flows, %d did not do their %d transactions; flows sum to %d of %d", w, len(res.Flows), short, per, sum, res.Transactions)
			}
			if err := serverAgrees(w, res); err != nil {
				t.Error(err)
			}
			if w == spec.TCPCRR && res.Remote.Accepts < res.Transactions {
				t.Errorf("%v: server accepted %d, client counted %d", w, res.Remote.Accepts, res.Transactions)
			}
			t.Logf("%v (timed %v): 1000 flows, %.0f %s, skew %.2f ms, errors %v", w, timed, res.Throughput, res.Units, *res.StartSkew*1e3, res.Errors)
		}
	}
}

// openFDs counts the process's open file descriptors.
func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// settle waits until f() is at most want, for what ends asynchronously
// (the server side of a test its client gave up on), and returns the
// count that ended the wait; the deadline is generous, as a loaded
// machine may run that late. It never counts again after the wait: a
// descriptor some other part of the process holds for an instant (a
// file read, a socket of a test winding down) would then read as a leak,
// which a real leak, there for the whole 30 s, never needs.
func settle(f func() int, want int) int {
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := f()
		if got <= want || !time.Now().Before(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFlowSetupFails: one flow that cannot be set up fails the test with
// its number and the cause, and leaves no socket or thread behind on
// either end (the server runs in this process too).
func TestFlowSetupFails(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []*spec.Workload{spec.TCPRR, spec.UDPRR, spec.TCPCRR, spec.TCPStream} {
		for _, n := range []int{8, 40} {
			fds, gs := openFDs(), runtime.NumGoroutine()
			s := specFor(w, ap)
			s.Flows, s.Duration = n, time.Second
			for i := 0; i < n; i++ {
				s.Locals = append(s.Locals, "127.0.0.1")
			}
			s.Locals[5] = "198.18.0.99" // on no interface here
			_, err := client.Run(context.Background(), s, client.Options{Threads: th})
			var fe *spec.FlowError
			if !errors.As(err, &fe) || fe.Flow != 5 || !strings.Contains(err.Error(), "flow 5 of") ||
				!strings.Contains(err.Error(), "198.18.0.99") {
				t.Fatalf("%v, %d flows: %v", w, n, err)
			}
			if got := settle(openFDs, fds); got > fds {
				t.Errorf("%v, %d flows: %d descriptors open after, %d before", w, n, got, fds)
			}
			// Every data-path thread is a goroutine locked to it, so one
			// left behind is a goroutine left behind. (The OS thread
			// count is no witness: the runtime keeps idle threads.)
			if got := settle(runtime.NumGoroutine, gs); got > gs {
				t.Errorf("%v, %d flows: %d goroutines after, %d before", w, n, got, gs)
			}
		}
	}
}

// gate releases a fixed number of tests together.
type gate struct {
	mu    sync.Mutex
	n     int
	start chan time.Time
}

func (g *gate) Arrive(ctx context.Context, lead time.Duration) (time.Time, error) {
	g.mu.Lock()
	g.n--
	if g.n == 0 {
		t0 := time.Now().Add(lead + 5*time.Millisecond)
		for i := 0; i < cap(g.start); i++ {
			g.start <- t0
		}
	}
	g.mu.Unlock()
	select {
	case t0 := <-g.start:
		return t0, nil
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
}

// TestGate: tests that share a gate start at one instant.
func TestGate(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	g := &gate{n: 3, start: make(chan time.Time, 3)}
	var wg sync.WaitGroup
	res := make([]*result.Result, 3)
	for i, w := range []*spec.Workload{spec.TCPStream, spec.TCPRR, spec.UDPRR} {
		wg.Go(func() {
			s := specFor(w, ap)
			s.Duration = 200 * time.Millisecond
			r, err := client.Run(context.Background(), s, client.Options{Threads: th, Gate: g})
			if err != nil {
				t.Error(err)
			}
			res[i] = r
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if res[0].Start == 0 || res[0].Start != res[1].Start || res[1].Start != res[2].Start {
		t.Errorf("starts %v %v %v, want one", res[0].Start, res[1].Start, res[2].Start)
	}
}

// TestDataPorts: a list of data ports gives each flow its server port; the
// server opens one endpoint per distinct port, and each flow went where it
// was told.
func TestDataPorts(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []*spec.Workload{spec.TCPRR, spec.TCPCRR, spec.UDPRR, spec.TCPStream} {
		p := []int{socktest.Reserve(t, true), socktest.Reserve(t, true)}
		s := specFor(w, ap)
		s.Flows = 4
		byWork(&s)
		s.DataPorts = []int{p[0], p[1], p[0], p[1]}
		res, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		for i, f := range res.Flows {
			if f.DataPort != s.DataPorts[i] || f.Throughput <= 0 {
				t.Errorf("%v: flow %d went to port %d (want %d), throughput %v", w, i, f.DataPort, s.DataPorts[i], f.Throughput)
			}
		}
	}
}
