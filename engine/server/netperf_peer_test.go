package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"netscript/engine/client/netservertest"
	"netscript/engine/limits"
)

// peersDir is where the reference netperf 2.7.1 binaries live: beside the
// project, in ../shared/peers/netperf-2.7.1 of the project root (the
// folder holding go.mod), as in CI.
func peersDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("cannot find the project root (go.mod) above the test's directory")
		}
		dir = up
	}
	peers := filepath.Join(dir, "..", "shared", "peers", "netperf-2.7.1")
	for _, bin := range []string{"netperf", "netserver"} {
		if _, err := os.Stat(filepath.Join(peers, bin)); err != nil {
			t.Fatalf("the reference netperf 2.7.1 is missing: want %s in %s (the project's ../shared/peers/netperf-2.7.1): %v", bin, peers, err)
		}
	}
	return peers
}

// npHarness is a daemon with a netperf listener, and what it reported.
type npHarness struct {
	srv    *Server
	addr4  string // host:port of the IPv4 listener
	port6  string // port of the [::1] listener, if asked for
	mu     sync.Mutex
	rep    []NetperfReport
	logBuf syncBuffer
}

// syncBuffer is a log a test reads while the server writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newNPHarness(t *testing.T, lim limits.Limits, v6 bool) *npHarness {
	t.Helper()
	h := &npHarness{}
	h.srv = New(Config{Log: &h.logBuf, Limits: lim, Explain: npNameBound, OnNetperf: func(r NetperfReport) {
		h.mu.Lock()
		h.rep = append(h.rep, r)
		h.mu.Unlock()
	}})
	t.Cleanup(func() {
		h.srv.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", h.logBuf.String())
		}
	})
	a, err := h.srv.ListenNetperf("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.addr4 = a.String()
	if v6 {
		a6, err := h.srv.ListenNetperf("[::1]:0")
		if err != nil {
			t.Fatal(err)
		}
		_, h.port6, _ = strings.Cut(a6.String(), "]:")
	}
	return h
}

func (h *npHarness) reports() []NetperfReport {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]NetperfReport(nil), h.rep...)
}

// netperfArgs are the global arguments that aim netperf at host:port.
func hostPort(addr string) []string {
	host, port, _ := strings.Cut(addr, ":")
	return []string{"-H", host, "-p", port}
}

// runNetperf runs the reference netperf with args and returns its stdout
// without its timer noise (netservertest.DropTimerNoise); a non-zero exit
// fails the test.
func runNetperf(t *testing.T, peers string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(peers, "netperf"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("netperf %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return netservertest.DropTimerNoise(out.String())
}

// keyvals parses netperf's -k output: KEY=VALUE lines.
func keyvals(out string) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(k, " \t") {
			kv[k] = v
		}
	}
	return kv
}

func kvUint(t *testing.T, kv map[string]string, key string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(kv[key], 10, 64)
	if err != nil {
		t.Fatalf("netperf's %s = %q: %v", key, kv[key], err)
	}
	return v
}

func kvFloat(t *testing.T, kv map[string]string, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(kv[key], 64)
	if err != nil {
		t.Fatalf("netperf's %s = %q: %v", key, kv[key], err)
	}
	return v
}

// npSelectors are the -k output selectors the count checks read.
const npSelectors = "LOCAL_BYTES_SENT,LOCAL_BYTES_RECVD,LOCAL_SEND_CALLS,LOCAL_SEND_SIZE,REMOTE_BYTES_SENT,REMOTE_BYTES_RECVD," +
	"REMOTE_SEND_CALLS,REMOTE_RECV_CALLS,REMOTE_CPU_UTIL,REMOTE_CPU_METHOD,ELAPSED_TIME,THROUGHPUT"

// withKeyvals adds -k selectors to netperf's test-specific arguments.
func withKeyvals(args []string) []string {
	for i, a := range args {
		if a == "--" {
			out := append([]string(nil), args[:i+1]...)
			out = append(out, "-k", npSelectors)
			return append(out, args[i+1:]...)
		}
	}
	return append(append([]string(nil), args...), "--", "-k", npSelectors)
}

func (r NetperfReport) String() string {
	return fmt.Sprintf("%s: %d transactions, %d bytes received, %d sent, %v, cpu %.2f",
		r.Test, r.Transactions, r.BytesReceived, r.BytesSent, r.Elapsed, r.CPUUtil)
}

// npNameBound is a daemon front end's Config.Explain in miniature (as
// nameBound in the external tests): it names the bound a limits.Bounded
// carries.
func npNameBound(err error) string {
	var b limits.Bounded
	if errors.As(err, &b) {
		return err.Error() + " [" + b.BoundName() + "]"
	}
	return err.Error()
}
