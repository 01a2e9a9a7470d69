package netns

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTB is a testing.TB whose failures, skips and cleanups stay inside it,
// so that a test can watch another "test" fail or panic. Methods it does
// not override go to the real test it embeds.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	failed   bool
	skipped  bool
	log      strings.Builder
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintf(&f.log, format+"\n", args...)
}

func (f *fakeTB) Log(args ...any)                   { f.Logf("%s", fmt.Sprint(args...)) }
func (f *fakeTB) Errorf(format string, args ...any) { f.Logf(format, args...); f.Fail() }
func (f *fakeTB) Error(args ...any)                 { f.Log(args...); f.Fail() }
func (f *fakeTB) Fatalf(format string, args ...any) { f.Logf(format, args...); f.FailNow() }
func (f *fakeTB) Fatal(args ...any)                 { f.Log(args...); f.FailNow() }
func (f *fakeTB) Skipf(format string, args ...any)  { f.Logf(format, args...); f.SkipNow() }
func (f *fakeTB) Skip(args ...any)                  { f.Log(args...); f.SkipNow() }
func (f *fakeTB) FailNow()                          { f.Fail(); runtime.Goexit() }

func (f *fakeTB) SkipNow() {
	f.mu.Lock()
	f.skipped = true
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeTB) Skipped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.skipped
}

func (f *fakeTB) Logged() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.String()
}

// runFake runs body as a test of its own on a new goroutine, the way the
// testing package does: a t.Fatal or a panic ends body, and the cleanups
// run afterwards in reverse order either way. A panic counts as a failure.
func runFake(t *testing.T, body func(tb testing.TB)) *fakeTB {
	t.Helper()
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				f.Errorf("panic: %v", r)
			}
			for i := len(f.cleanups) - 1; i >= 0; i-- {
				f.cleanups[i]()
			}
		}()
		body(f)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("fake test did not finish in a minute")
	}
	return f
}

// noLeaks makes the test fail, after all of its other cleanups have run, if
// this process still has namespaces. Call it first thing in a test.
func noLeaks(t *testing.T) {
	t.Helper()
	Available(t)
	t.Cleanup(func() {
		if left, err := Leftovers(); err != nil || len(left) > 0 {
			t.Errorf("namespaces left behind: %v, %v", left, err)
		}
	})
}

// gone reports whether process pid has gone: no such process, or a zombie
// (which has released everything but its entry in the process table).
func gone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone waits up to 20 s (a loaded machine may be slow to reap) for
// process pid to go.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !gone(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// listen opens a TCP listener on addr (host:port, port may be 0) inside ns
// and closes it at cleanup.
func listen(t *testing.T, ns *NS, addr string) *net.TCPListener {
	t.Helper()
	var ln net.Listener
	err := ns.Do(func() (err error) {
		ln, err = net.Listen("tcp", addr)
		return err
	})
	if err != nil {
		t.Fatalf("listen on %s in %s: %v", addr, ns, err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.(*net.TCPListener)
}

// accept accepts one connection on ln within 5 s and returns its peer's
// address, closing the connection.
func accept(t *testing.T, ln *net.TCPListener) net.Addr {
	t.Helper()
	ln.SetDeadline(time.Now().Add(5 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("accept on %s: %v", ln.Addr(), err)
	}
	defer c.Close()
	return c.RemoteAddr()
}

// dial connects from inside ns to addr, from source address src unless it
// is "", and returns the connection, which is closed at cleanup.
func dial(t *testing.T, ns *NS, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	var c net.Conn
	err := ns.Do(func() (err error) {
		c, err = d.Dial("tcp", addr)
		return err
	})
	if err != nil {
		t.Fatalf("dial %s from %s in %s: %v", addr, src, ns, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// hostSysctl reads a sysctl of the test process's own namespace.
func hostSysctl(t *testing.T, key string) string {
	t.Helper()
	p, err := sysctlPath(key)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}
