package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// socketFiles lists the socket files under dir's directories of the
// daemon's own (netscript-serve-*), and those directories.
func socketFiles(t *testing.T, dir string) (dirs, socks []string) {
	t.Helper()
	dirs, _ = filepath.Glob(filepath.Join(dir, "netscript-serve-*"))
	for _, d := range dirs {
		s, _ := filepath.Glob(filepath.Join(d, "*.sock"))
		socks = append(socks, s...)
	}
	return dirs, socks
}

// waitFiles waits, generously, until ok holds of dir's socket files.
func waitFiles(t *testing.T, dir, what string, ok func(dirs, socks []string) bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		dirs, socks := socketFiles(t, dir)
		if ok(dirs, socks) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: directories %q, sockets %q", what, dirs, socks)
		}
	}
}

// TestUnixDirInterrupted: with --unix-dir a daemon makes the sockets of
// tests over UNIX domain sockets as files in a directory of its own; Ctrl-C
// in the script ends its test and removes its socket, and SIGINT to the
// daemon in the middle of a test removes the directory with what is in it.
func TestUnixDirInterrupted(t *testing.T) {
	dir := t.TempDir()
	d := startDaemon(t, nil, "--unix-dir", dir)
	p := startOnPTY(t, []string{"-c", fmt.Sprintf("unix_rr(host='127.0.0.1', port=%d, duration=30)", d.port)})
	p.expectRE(measuring, 60*time.Second)
	waitFiles(t, dir, "a socket file while the test runs", func(dirs, socks []string) bool { return len(dirs) == 1 && len(socks) == 1 })
	p.cmd.Process.Signal(syscall.SIGINT)
	if out, err := p.wait(20 * time.Second); err == nil {
		t.Fatalf("the interrupted script exited 0:\n%s", visible(out))
	}
	waitFiles(t, dir, "the socket once the interrupted test ended", func(dirs, socks []string) bool { return len(socks) == 0 })

	p = startOnPTY(t, []string{"-c", fmt.Sprintf("unixgram_rr(host='127.0.0.1', port=%d, duration=30)", d.port)})
	p.expectRE(measuring, 60*time.Second)
	waitFiles(t, dir, "a datagram socket file", func(dirs, socks []string) bool { return len(socks) == 1 })
	d.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon did not exit on SIGINT")
	}
	p.cmd.Process.Kill()
	p.wait(20 * time.Second)
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("after the daemon's SIGINT %s still holds %v", dir, left)
	}
	if r := netscript(t, 20*time.Second, "serve", "--listen", "127.0.0.1:0", "--unix-dir", filepath.Join(dir, "none")); r.code != exitUsage {
		t.Errorf("--unix-dir naming no directory: %+v", r)
	}
}
