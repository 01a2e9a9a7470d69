package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childrenServing returns the pids of processes whose parent is ppid and
// whose command line is an embedded server.
func childrenServing(ppid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if !strings.Contains(string(cmd), "--embedded-fd") {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestEmbeddedServerIsAProcess: a script without a host talks to a server
// in a separate process (so its figures are a separate server's), and that
// process dies with the script even when the script is killed outright.
func TestEmbeddedServerIsAProcess(t *testing.T) {
	cmd := exec.Command(bin, "-c", "tcp_rr(duration=30)")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Polled with generous deadlines: a loaded machine may take seconds
	// to start the server and to reap it.
	var kids []int
	for deadline := time.Now().Add(30 * time.Second); len(kids) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		kids = childrenServing(cmd.Process.Pid)
	}
	if len(kids) != 1 {
		t.Fatalf("embedded server processes: %v, want one child of %d", kids, cmd.Process.Pid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// A zombie (left for init to reap) also counts as gone; anything still
	// running is a leak.
	stat := func() string {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(kids[0]), "stat"))
		return string(b)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st := stat()
		if st == "" || strings.Contains(st, ") Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("embedded server %d outlived its killed parent: %s", kids[0], st)
		}
	}
}
