package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"netscript/engine/proto"
	"netscript/engine/proto/manual"
)

// procFigures are what /proc says of a process.
type procFigures struct {
	threads int
	rssKiB  int
	fds     int
}

// readProc reads a process's threads, resident memory and descriptors.
func readProc(t *testing.T, pid int) procFigures {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("the daemon's /proc: %v", err)
	}
	var f procFigures
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		switch k {
		case "Threads":
			f.threads, _ = strconv.Atoi(fields[0])
		case "VmRSS":
			f.rssKiB, _ = strconv.Atoi(fields[0])
		}
	}
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("the daemon's descriptors: %v", err)
	}
	f.fds = len(es)
	return f
}

// TestThreadExhaustionAttempt replays what once killed the daemon: 21
// control connections from one address, each with a Setup for TCP_STREAM
// with 256 flows and 60 s, each test's 256 data connections opened and
// Start never sent (5,376 connections; the daemon used to make two threads
// for each and died at the runtime's 10,000). Now each test is charged to
// the thread budget at Setup (and refused if it does not fit), its
// connections are served by a few epoll threads, and a test that never
// starts is ended at the handshake bound. Meanwhile a script's tcp_rr runs
// against the same daemon; afterwards the daemon's threads, memory and
// descriptors are back near where they were.
func TestThreadExhaustionAttempt(t *testing.T) {
	const tests, flows = 21, 256
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Max < tests*flows+1024 {
		t.Skipf("needs %d descriptors (limit %d)", tests*flows+1024, rl.Max)
	}
	rl.Cur = rl.Max
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)

	d := startDaemon(t, nil, "--handshake-timeout", "3s")
	pid := d.cmd.Process.Pid
	addr := fmt.Sprintf("127.0.0.1:%d", d.port)
	before := readProc(t, pid)

	var peak procFigures
	var peakMu sync.Mutex
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	go func() { // the daemon's peak, sampled
		defer close(watched)
		for {
			f := readProc(t, pid)
			peakMu.Lock()
			peak.threads, peak.rssKiB, peak.fds = max(peak.threads, f.threads), max(peak.rssKiB, f.rssKiB), max(peak.fds, f.fds)
			peakMu.Unlock()
			select {
			case <-stopWatch:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	admitted, refused := 0, 0
	setup := proto.Setup{Test: "TCP_STREAM", Flows: flows, DurationNs: int64(60 * time.Second)}
	for i := range tests {
		c, ready, err := manual.AskFor(addr, setup, 10*time.Second)
		if err != nil {
			if !strings.Contains(err.Error(), "--max-threads") {
				t.Fatalf("test %d: refused for another reason: %v", i, err)
			}
			refused++
			continue
		}
		admitted++
		held = append(held, c)
		for range flows {
			dc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", ready.DataPort), 5*time.Second)
			if err != nil {
				t.Fatalf("test %d: data connection: %v", i, err)
			}
			held = append(held, dc)
		}
	}
	t.Logf("%d tests admitted, %d refused at Setup", admitted, refused)
	// A stream of 256 flows is served on a few epoll threads, so all 21
	// fit the default budget (a thread per flow would fit none).
	if admitted != tests {
		t.Errorf("%d of %d tests admitted, want all", admitted, tests)
	}

	// A script's test is served meanwhile.
	r := netscriptEnv(t, 60*time.Second, nil, "-c", fmt.Sprintf("r = tcp_rr(host='127.0.0.1', port=%d, duration=1)\nprint(r.transactions > 0)", d.port))
	if r.code != 0 || strings.TrimSpace(r.stdout) != "True" {
		t.Fatalf("a good test during the attack: %+v", r)
	}

	// The tests that never started are ended and their sockets closed.
	waitFor(t, 30*time.Second, "the unstarted tests to be ended", func() bool {
		f := readProc(t, pid)
		return f.fds <= before.fds+admitted*(flows+2)/4 // most of their sockets gone
	})
	for _, c := range held {
		c.Close()
	}
	held = nil
	close(stopWatch)
	<-watched
	select {
	case <-d.done:
		t.Fatalf("the daemon died:\n%s", d.stderr.String())
	default:
	}
	t.Logf("daemon before: %+v; peak: %+v", before, peak)
	// Two threads a connection would be thousands; the budget's default
	// is 128 data-path threads.
	if peak.threads > 400 {
		t.Errorf("the daemon peaked at %d threads", peak.threads)
	}
	waitFor(t, 30*time.Second, "the daemon's descriptors and threads to come back", func() bool {
		f := readProc(t, pid)
		return f.fds <= before.fds && f.threads <= before.threads+16
	})
	after := readProc(t, pid)
	if after.rssKiB > before.rssKiB+32<<10 {
		t.Errorf("the daemon's memory: %d KiB after, %d before", after.rssKiB, before.rssKiB)
	}
	t.Logf("daemon after: %+v", after)
}

// TestPendingAndLogBudgetsHold: against a daemon process, one address
// holding 200 silent control connections keeps no other client out (it
// gets --max-pending-per-client of them), a flood of Setups naming a
// 65,000-character test fills its log with a few KiB a second, and
// afterwards the daemon's threads, memory and descriptors are back near
// where they were.
func TestPendingAndLogBudgetsHold(t *testing.T) {
	// 200 silent connections would fill --max-pending 100 but for the
	// bound per address.
	d := startDaemon(t, nil, "--handshake-timeout", "5s", "--max-pending", "100")
	pid := d.cmd.Process.Pid
	addr := fmt.Sprintf("127.0.0.1:%d", d.port)
	before := readProc(t, pid)

	var silent []net.Conn
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	dl := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	for range 200 {
		c, err := dl.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
	}
	r := netscriptEnv(t, 60*time.Second, nil, "-c", fmt.Sprintf("print(tcp_rr(host='127.0.0.1', port=%d, duration=0.5).transactions > 0)", d.port))
	if r.code != 0 || strings.TrimSpace(r.stdout) != "True" {
		t.Fatalf("a client from another address while one holds 200 pending: %+v", r)
	}

	logged := len(d.stderr.String())
	t0 := time.Now()
	name := strings.Repeat("A", 65000)
	for range 50 {
		if _, _, err := manual.AskFor(addr, proto.Setup{Test: name}, 10*time.Second); err == nil || !strings.Contains(err.Error(), "(65000 bytes)") {
			t.Fatalf("a 65,000-character test name: %v", err)
		}
	}
	if n, secs := len(d.stderr.String())-logged, time.Since(t0).Seconds()+1; float64(n) > secs*20*1024 {
		t.Errorf("%d bytes of log in %.1f s", n, secs)
	}

	for _, c := range silent {
		c.Close()
	}
	waitFor(t, 30*time.Second, "the daemon's descriptors and threads to come back", func() bool {
		f := readProc(t, pid)
		return f.fds <= before.fds && f.threads <= before.threads+16
	})
	if after := readProc(t, pid); after.rssKiB > before.rssKiB+32<<10 {
		t.Errorf("the daemon's memory: %d KiB after, %d before", after.rssKiB, before.rssKiB)
	}
}
