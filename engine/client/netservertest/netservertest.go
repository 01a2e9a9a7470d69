// Package netservertest starts real netserver processes (netperf 2.7.1,
// from the peers folder beside the project) for tests of
// server="netserver". A test that cannot find the binary fails and names
// where it looked: these tests prove netscript against the real thing.
package netservertest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
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
// by default, and stops it (and its children) when the test ends. It
// returns the port.
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
	for try := 0; try < 20; try++ {
		port := freePort(t, addr)
		args := append([]string{"-D", "-p", strconv.Itoa(port), "-L", addr}, extra...)
		if ip := net.ParseIP(addr); ip != nil && ip.To4() == nil {
			args = append(args, "-6")
		} else {
			args = append(args, "-4")
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir() // its debug file goes there
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", bin, err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		if listening(addr, port, exited) {
			pgid := cmd.Process.Pid
			t.Cleanup(func() {
				syscall.Kill(-pgid, syscall.SIGKILL) // netserver and the children it forked
				<-exited
			})
			return port
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited // the port was taken meanwhile: another
	}
	t.Fatalf("netserver did not start listening on %s in 20 tries", addr)
	return 0
}

// listening waits until something accepts on addr:port, or the process
// exits.
func listening(addr string, port int, exited <-chan struct{}) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(addr, strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close() // netserver's child sees EOF and exits
			return true
		}
		select {
		case <-exited:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// freePort is a TCP port on addr the kernel chose, free when it returns.
func freePort(t testing.TB, addr string) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
