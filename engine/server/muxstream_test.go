package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/cpu"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// TestMuxStreams: TCP_STREAM and TCP_MAERTS with many flows are served on
// a few epoll threads, and per flow the two ends agree: TCP_STREAM's bytes
// sent are the server's bytes received, TCP_MAERTS's bytes received (and
// drained, which only the whole test reports) are the server's bytes sent;
// with a byte count, each flow moves exactly it.
//
// How many threads served a test is counted by the kernel: the server's
// data-path threads are bound to one CPU (remote_cpu), the client's are
// not, so the threads of the process whose affinity is that CPU alone are
// the server's. A thread per flow would be 16 or 256 of them.
func TestMuxStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("hundreds of connections")
	}
	ap, th := start(t)
	aff, err := cpu.Affinity()
	if err != nil || len(aff) < 2 {
		t.Skipf("the test's threads may run on %v (%v): needs two CPUs to tell the server's threads apart", aff, err)
	}
	bound := aff[len(aff)-1]
	// Whether any timed test was seen serving: one look every 20 ms may
	// miss a half-second test on a starved machine (CI once saw none in a
	// 256-flow test), so the count's lower bound holds over all of them
	// and keeps the upper bound from passing on a count that sees nothing.
	seen, timed := 0, 0
	for _, c := range []struct {
		w     *spec.Workload
		flows int
		bytes uint64  // per flow; 0: timed
		rate  float64 // TCP_MAERTS: the server's sends per second per flow
	}{
		{spec.TCPStream, 16, 0, 0},
		{spec.TCPStream, 256, 0, 0},
		{spec.TCPStream, 256, 100003, 0},
		{spec.TCPMaerts, 16, 0, 0},
		{spec.TCPMaerts, 256, 0, 0},
		{spec.TCPMaerts, 256, 100003, 0},
		{spec.TCPMaerts, 16, 0, 200},
	} {
		s := spec.Default(c.w)
		s.Flows, s.Bytes, s.Rate, s.RemoteCPU = c.flows, c.bytes, c.rate, &bound
		s.Duration = 500 * time.Millisecond
		if c.bytes > 0 {
			s.Duration = 0
		}
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		t.Run(fmt.Sprintf("%s %d flows %d bytes rate %v", c.w.Name, c.flows, c.bytes, c.rate), func(t *testing.T) {
			type outcome struct {
				r   *result.Result
				err error
			}
			// The previous test's server threads end as their goroutines
			// do, which on a loaded machine may be after its client had
			// its result: wait for them, so only this test's are counted.
			for deadline := time.Now().Add(20 * time.Second); threadsOn(bound) > 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("waiting for the previous test's %d threads bound to CPU %d to end: still there after 20 s", threadsOn(bound), bound)
				}
			}
			done := make(chan outcome, 1)
			go func() {
				r, err := client.Run(context.Background(), s, client.Options{Threads: th})
				done <- outcome{r, err}
			}()
			most := 0
			var o *outcome
			for o == nil {
				select {
				case got := <-done:
					o = &got
				case <-time.After(20 * time.Millisecond):
					most = max(most, threadsOn(bound))
				}
			}
			if o.err != nil {
				t.Fatal(o.err)
			}
			r := o.r
			if r.Remote == nil || len(r.Flows) != c.flows {
				t.Fatalf("%d flows, remote %+v", len(r.Flows), r.Remote)
			}
			if most > 8 {
				t.Errorf("the server ran %d threads on CPU %d at most while serving %d flows, want 1 to 8", most, bound, c.flows)
			}
			if c.bytes == 0 {
				timed++
				if most > 0 {
					seen++
				}
			}
			if len(r.Errors) != 0 || len(r.Remote.Errors) != 0 {
				t.Errorf("errors: client %v, server %v", r.Errors, r.Remote.Errors)
			}
			var sent, received uint64
			for i, f := range r.Flows {
				if f.Remote == nil || f.Error != "" {
					t.Fatalf("flow %d: server's count %+v, error %q", i, f.Remote, f.Error)
				}
				sent += f.Remote.BytesSent
				received += f.BytesReceived
				switch {
				case c.w == spec.TCPStream && (f.Remote.BytesReceived != f.BytesSent || c.bytes > 0 && f.BytesSent != c.bytes):
					t.Errorf("flow %d: sent %d, the server received %d (byte count %d)", i, f.BytesSent, f.Remote.BytesReceived, c.bytes)
				case c.w == spec.TCPMaerts && (f.BytesReceived > f.Remote.BytesSent || c.bytes > 0 && (f.BytesReceived != c.bytes || f.Remote.BytesSent != c.bytes)):
					t.Errorf("flow %d: received %d, the server sent %d (byte count %d)", i, f.BytesReceived, f.Remote.BytesSent, c.bytes)
				}
			}
			if c.w == spec.TCPStream && (r.BytesSent == 0 || r.Remote.BytesReceived != r.BytesSent) {
				t.Errorf("sent %d, the server received %d", r.BytesSent, r.Remote.BytesReceived)
			}
			if c.w == spec.TCPMaerts && (received == 0 || received+r.Drained != sent || sent != r.Remote.BytesSent) {
				t.Errorf("received %d + drained %d, the server sent %d (its flows %d)", received, r.Drained, r.Remote.BytesSent, sent)
			}
		})
	}
	// A timed test is long enough to be seen serving; one by byte count may
	// be over between two looks.
	if timed > 0 && seen == 0 {
		t.Errorf("none of the %d timed tests was seen running a thread on CPU %d: the count of the server's threads sees nothing", timed, bound)
	}
}

// threadsOn counts the process's threads that may run on cpu alone.
func threadsOn(cpu int) int {
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	want := "Cpus_allowed_list:\t" + strconv.Itoa(cpu) + "\n"
	n := 0
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), want) {
			n++
		}
	}
	return n
}
