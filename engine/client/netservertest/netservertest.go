// Package netservertest starts real netserver processes (netperf 2.7.1,
// from the peers folder beside the project) for tests of
// server="netserver". A test that cannot find the binary fails and names
// where it looked: these tests prove netscript against the real thing.
package netservertest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"netscript/engine/childproc"
)

// Dir is where the netperf 2.7.1 binaries are, relative to the project
// root (the folder of go.mod): ../shared/peers/netperf-2.7.1.
const Dir = "../shared/peers/netperf-2.7.1"

// Binary returns the path of a netperf 2.7.1 binary ("netserver",
// "netperf"), failing t when it is missing.
func Binary(t testing.TB, name string) string {
	t.Helper()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			t.Fatalf("no go.mod above the test's directory: cannot find %s", Dir)
		}
		root = up
	}
	p := filepath.Join(root, Dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s (netperf 2.7.1's, static x86-64) is missing: %v; put it in %s beside the project", name, err, filepath.Join(root, Dir))
	}
	return p
}

// Start starts a netserver listening on addr ("127.0.0.1", "::1") at a
// port the kernel chose, forking a child per control connection as it does
// by default, and stops it (and its children) when the test ends, or when
// the test binary dies without ending it. It returns the port.
func Start(t testing.TB, addr string) int {
	t.Helper()
	return start(t, addr)
}

// StartSerial is Start for a netserver started with -f: it serves one
// control connection at a time, without forking.
func StartSerial(t testing.TB, addr string) int {
	t.Helper()
	return start(t, addr, "-f")
}

func start(t testing.TB, addr string, extra ...string) int {
	t.Helper()
	bin := Binary(t, "netserver")
	// -p 0: the kernel chooses the port as netserver binds it; netserver
	// does not say which, so it is read from the listening socket it holds.
	args := append([]string{"-D", "-p", "0", "-L", addr}, extra...)
	if ip := net.ParseIP(addr); ip != nil && ip.To4() == nil {
		args = append(args, "-6")
	} else {
		args = append(args, "-4")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir() // its debug file goes there
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Its own process group, so cleanup kills the children it forks too;
	// and killed by the kernel if the test binary dies before cleanup runs
	// (a signal, -test.timeout), when those children lose their control
	// connection and end on their own.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := childproc.Start(cmd); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	pgid := cmd.Process.Pid
	t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGKILL) // netserver and the children it forked
		<-exited
		if t.Failed() && out.Len() > 0 {
			// What it said of a failure of its own (a child's perror, a
			// crash) is the only trace of one that cannot be reproduced.
			t.Logf("netserver %v said:\n%s", args, out.String())
		}
	})
	port, err := ListeningPort(cmd.Process.Pid, exited, 30*time.Second)
	if err != nil {
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited // out is written no more
		t.Fatalf("netserver %v on %s: %v; it said: %q", args, addr, err, out.String())
	}
	return port
}

// DropTimerNoise removes the line netperf 2.7.1 prints on stdout when its
// test-length alarm fires again before the loop has seen the first one
// (netlib.c's catcher, "timer popped with times_up != 0"): it happens on
// a loaded machine, says nothing about the test, and netscript has no
// such race to report, so tests that compare netperf's output drop it.
func DropTimerNoise(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "catcher: timer popped") {
			b.WriteString(l)
		}
	}
	return b.String()
}
