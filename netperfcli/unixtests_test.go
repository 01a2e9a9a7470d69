package netperfcli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"netscript/engine/client/netservertest"
	"netscript/engine/spec"
)

// TestSendfileAgainstNetperf runs -t TCP_SENDFILE with both netperfs
// against one netserver, with and without a -F file, and compares what
// they print, as TestAgainstNetperf does for the lines of lines.txt.
func TestSendfileAgainstNetperf(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fill")
	if err := os.WriteFile(file, []byte(strings.Repeat("netscript sendfile ", 20000)), 0o644); err != nil {
		t.Fatal(err)
	}
	port := netservertest.Start(t, "127.0.0.1")
	for _, line := range []string{
		"-t TCP_SENDFILE -l 1",
		"-t TCP_SENDFILE -l 1 -F " + file,
		"-t TCP_SENDFILE -l 1 -P 0 -B br -F " + file,
		"-t TCP_SENDFILE -l 1 -v 0",
		"-t TCP_SENDFILE -l 1 -c -C -F " + file,
		"-t TCP_SENDFILE -l 1 -v 2 -F " + file,
		"-t TCP_SENDFILE -l 1 -F " + file + " -- -m 4096 -s 65536",
		"-t TCP_SENDFILE -l -1000000 -F " + file,
	} {
		args := append([]string{"-H", "127.0.0.1", "-p", strconv.Itoa(port)}, strings.Fields(line)...)
		t.Run(line, func(t *testing.T) {
			compareRuns(t, reference(t, args), ours(t, args))
		})
	}
}

// TestSendfileSpec: -t TCP_SENDFILE is tcp_sendfile, sending the -F file
// (none: a temporary one) with -m bytes a call, and its script says so.
func TestSendfileSpec(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fill")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, _ := parse(t, "-H 198.18.0.2 -t TCP_SENDFILE -F "+file+" -- -m 1000 -D")
	s, err := c.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload != spec.TCPSendfile || s.File != file || s.SendSize != 1000 || !s.NoDelay || !s.Netserver() {
		t.Errorf("spec %s file %q send_size %d nodelay %v server %q", s.Workload.Name, s.File, s.SendSize, s.NoDelay, s.Server)
	}
	src, err := c.Script()
	if err != nil || !strings.Contains(src, "tcp_sendfile(") || !strings.Contains(src, "file = "+strconv.Quote(file)) {
		t.Errorf("script %v:\n%s", err, src)
	}
	c, _, _ = parse(t, "-t TCP_SENDFILE -F "+filepath.Join(t.TempDir(), "none"))
	if _, err := c.Spec(); err == nil || !strings.Contains(c.explain(err).Error(), "file: cannot read") {
		t.Errorf("a -F file that is not there: %v", err)
	}
}

// TestUnixTests runs the UNIX domain tests against the embedded server:
// each prints nettest_unix.c's banner and table, and their options reach
// the test.
func TestUnixTests(t *testing.T) {
	for _, tc := range []struct {
		line   string
		w      *spec.Workload
		banner string
		lines  int // of the table, after the banner and headers
	}{
		{"-t STREAM_RR -l -300 -- -r 32,64", spec.UnixRR, "STREAM REQUEST/RESPONSE TEST", 2},
		{"-t stream_stream -l -1000000 -- -m 1000", spec.UnixStream, "STREAM STREAM TEST", 1},
		{"-t DG_RR -l -300 -- -r 100,200 -s 65536", spec.UnixgramRR, "DG REQUEST/RESPONSE TEST", 2},
		{"-t DG_STREAM -l 1 -- -m 1000", spec.UnixgramStream, "DG UNIDIRECTIONAL SEND TEST", 2},
	} {
		c, _, _ := parse(t, tc.line)
		s, err := c.Spec()
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if s.Workload != tc.w {
			t.Errorf("%s: runs %s", tc.line, s.Workload.Name)
		}
		got := ours(t, strings.Fields(tc.line))
		if got.status != 0 || got.err != "" {
			t.Fatalf("%s: exit %d, stderr %q\n%s", tc.line, got.status, got.err, got.out)
		}
		ls := lines(got.out)
		if len(ls) < 2 || ls[0] != tc.banner {
			t.Fatalf("%s: printed\n%s", tc.line, got.out)
		}
		var table []string
		for i, l := range ls {
			if l == "" && i > 0 {
				table = ls[i+1:]
				break
			}
		}
		if n := len(strings.Fields(strings.Join(table, "\n"))); len(table) < tc.lines || n == 0 {
			t.Errorf("%s: table %q", tc.line, table)
		}
		switch tc.w {
		case spec.UnixRR:
			if !strings.HasPrefix(strings.Join(strings.Fields(table[0])[2:4], " "), "32 64") {
				t.Errorf("%s: sizes in %q", tc.line, table[0])
			}
		case spec.UnixStream:
			if f := strings.Fields(table[0]); len(f) < 3 || f[2] != "1000" {
				t.Errorf("%s: send size in %q", tc.line, table[0])
			}
		}
	}
	// -v 0: the figure alone, after the banner.
	got := ours(t, []string{"-t", "STREAM_RR", "-l", "-100", "-v", "0"})
	if ls := lines(got.out); len(ls) != 2 || ls[0] != "STREAM REQUEST/RESPONSE TEST" {
		t.Errorf("-v 0: %q", got.out)
	}
	// The test's help names its options.
	got = ours(t, []string{"-t", "DG_RR", "--", "-h"})
	if got.status != 1 || !strings.Contains(got.out, "STREAM/DG UNIX Sockets Test Options") {
		t.Errorf("-- -h: exit %d, %q", got.status, got.out)
	}
}
