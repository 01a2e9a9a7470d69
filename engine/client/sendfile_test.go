package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestSendfile: tcp_sendfile counts as tcp_stream does (every byte sent
// read by the server, throughput of the server's count over the interval
// that ends with its close), from the file given or from a temporary file
// of send_size × 128 bytes that is gone from the file system before the
// test starts.
func TestSendfile(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the temporary file would be left behind
	file := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(file, []byte(strings.Repeat("netscript", 10000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file  string
		bytes uint64
		size  int
	}{{"", 0, 0}, {"", 5 << 20, 65536}, {file, 0, 8192}, {file, 1 << 20, 100000}} {
		s := spec.Default(spec.TCPSendfile)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration, s.File, s.Bytes, s.SendSize = 300*time.Millisecond, c.file, c.bytes, c.size
		if c.bytes > 0 {
			s.Duration = 0
		}
		what := fmt.Sprintf("file=%q bytes=%d send_size=%d", c.file, c.bytes, c.size)
		r, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if r.BytesSent == 0 || r.BytesSent != r.Remote.BytesReceived {
			t.Errorf("%s: sent %d, the server read %d", what, r.BytesSent, r.Remote.BytesReceived)
		}
		if want := float64(r.Remote.BytesReceived) * 8 / 1e6 / r.Elapsed; math.Abs(r.Throughput-want) > 1e-9*want {
			t.Errorf("%s: throughput %v, want %v", what, r.Throughput, want)
		}
		if c.bytes > 0 && r.BytesSent != c.bytes {
			t.Errorf("%s: sent %d", what, r.BytesSent)
		}
		if r.Config.File != c.file || r.Test != "TCP_SENDFILE" || r.SendCalls == 0 {
			t.Errorf("%s: config.file %q, test %s, %d send calls", what, r.Config.File, r.Test, r.SendCalls)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// TestSendfileStrace: what tcp_sendfile sends goes out in sendfile(2)
// calls, one per send it counts: strace says so of a client in a process
// of its own (this test binary, run again). strace writes each thread's
// calls to a file of its own (-ff): in one file for all threads, a call
// that another thread's line interrupts is split in two ("<unfinished
// ...>", then "<... sendfile resumed>"), as happens on a loaded machine.
func TestSendfileStrace(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("strace is missing (.ci/run installs it)")
		}
		t.Skip("strace is missing")
	}
	ap := startServer(t, &workload.Threads{})
	out := filepath.Join(t.TempDir(), "strace")
	cmd := exec.Command(strace, "-ff", "-qq", "-e", "trace=sendfile", "-o", out, os.Args[0], "-test.run=^TestSendfileChild$")
	cmd.Env = append(os.Environ(), "NETSCRIPT_SENDFILE_CHILD="+ap.String())
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client under strace: %v\n%s", err, got)
	}
	_, js, ok := strings.Cut(string(got), "RESULT ")
	var r result.Result
	if !ok || json.Unmarshal([]byte(strings.SplitN(js, "\n", 2)[0]), &r) != nil {
		t.Fatalf("no result from the client: %s", got)
	}
	files, err := filepath.Glob(out + ".*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no trace from strace (%v)", err)
	}
	var trace []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		trace = append(trace, b...)
	}
	// A call that moved data: its line, or the second half of a call
	// strace split after all (a signal). strace pads a short line's
	// " = " out to a column.
	moved := regexp.MustCompile(`(?m)(^sendfile(64)?\(|^<\.\.\. sendfile(64)? resumed>).*\) += [1-9][0-9]*$`).FindAll(trace, -1)
	if r.SendCalls == 0 || uint64(len(moved)) != r.SendCalls || r.BytesSent != 2<<20 {
		t.Errorf("%d sendfile calls moved data; the client counted %d sends of %d bytes\n%.2000s", len(moved), r.SendCalls, r.BytesSent, trace)
	}
}

// TestSendfileChild is the client of TestSendfileStrace, in a process of
// its own; it does nothing when run as a test of its own.
func TestSendfileChild(t *testing.T) {
	addr := os.Getenv("NETSCRIPT_SENDFILE_CHILD")
	if addr == "" {
		t.Skip("the client of TestSendfileStrace")
	}
	host, port, _ := strings.Cut(addr, ":")
	s := spec.Default(spec.TCPSendfile)
	s.Host, s.Duration, s.Bytes, s.SendSize = host, 0, 2<<20, 65536
	fmt.Sscan(port, &s.Port)
	r, err := client.Run(context.Background(), s, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	fmt.Printf("RESULT %s\n", b)
}
