package netns

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"golang.org/x/sys/unix"
)

// Do runs fn on an OS thread that has entered the namespace and returns
// fn's error. Sockets fn opens belong to the namespace for their whole
// life: a listener opened in fn can be returned to the caller and served
// from any goroutine after Do returns, and a connection dialled in fn
// leaves from the namespace's interfaces.
//
// fn runs on a goroutine of its own. Only work done on that goroutine
// happens inside the namespace: goroutines fn starts run on other threads,
// in the test process's own namespace. Dial and listen on literal IP
// addresses (a host name could be looked up on another goroutine). fn must
// not call runtime.UnlockOSThread, nor t.Fatal, t.FailNow or t.Skip (they
// may only be called from the test's goroutine; Do reports an error if fn
// exits that way). If fn panics, Do panics with the same value's text and
// fn's stack.
//
// How the thread is kept away from the rest of the program: the goroutine
// locks itself to its thread, remembers the thread's namespace, enters ns
// with setns(2) and runs fn. Afterwards it switches the thread back and
// checks that /proc/thread-self/ns/net is the original namespace again;
// only then does it unlock, so the runtime gets back a thread in the
// original namespace, and no thread-creation cost is paid per call. If
// switching back fails, the goroutine exits still locked, and the runtime
// then terminates the thread (or, if it is the main thread, parks it for
// good) instead of reusing it. While the thread is inside ns the runtime
// does not clone it either: threads locked with LockOSThread never create
// new threads themselves (the runtime hands that to a clean template
// thread), so no other thread inherits the namespace.
func (ns *NS) Do(fn func() error) error {
	fd, err := unix.Open(ns.path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("netns: enter %s: open %s: %w", ns.name, ns.path, err)
	}
	defer unix.Close(fd)
	return onThreadIn(ns.name, func() error { return unix.Setns(fd, unix.CLONE_NEWNET) }, fn)
}

// onThreadIn runs fn on a new goroutine locked to its OS thread after enter
// has moved that thread into another network namespace (named where in
// messages), and moves it back afterwards; see Do for the rules.
func onThreadIn(where string, enter, fn func() error) error {
	type result struct {
		err      error
		panicked bool
		value    any
		stack    []byte
	}
	ch := make(chan result, 1)
	go func() {
		var res result
		defer func() { ch <- res }() // runs last, after the thread is dealt with
		runtime.LockOSThread()
		orig, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread() // not moved yet: the thread is clean
			res.err = fmt.Errorf("netns: enter %s: open this thread's namespace: %w", where, err)
			return
		}
		defer func() {
			if err := restore(orig); err != nil {
				// Stay locked: the goroutine exits locked and the runtime
				// throws the thread away.
				if res.err == nil {
					res.err = fmt.Errorf("netns: leave %s: %w (thread discarded)", where, err)
				}
			} else {
				runtime.UnlockOSThread()
			}
			unix.Close(orig)
		}()
		if err := enter(); err != nil {
			res.err = fmt.Errorf("netns: enter %s: setns: %w", where, err)
			return
		}
		returned := false
		defer func() {
			if r := recover(); r != nil {
				res.panicked, res.value, res.stack = true, r, debug.Stack()
			} else if !returned {
				res.err = fmt.Errorf("netns: the function run in %s called runtime.Goexit "+
					"(t.Fatal, t.FailNow or t.Skip?); call those after Do returns", where)
			}
		}()
		if fn != nil {
			res.err = fn()
		}
		returned = true
	}()
	res := <-ch
	if res.panicked {
		panic(fmt.Sprintf("netns: panic in %s: %v\n\n%s", where, res.value, res.stack))
	}
	return res.err
}

// restore moves the calling thread back into the namespace open as orig and
// checks that it got there.
func restore(orig int) error {
	if err := unix.Setns(orig, unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("setns back: %w", err)
	}
	var want, got unix.Stat_t
	if err := unix.Fstat(orig, &want); err != nil {
		return fmt.Errorf("stat original namespace: %w", err)
	}
	if err := unix.Stat("/proc/thread-self/ns/net", &got); err != nil {
		return fmt.Errorf("stat this thread's namespace: %w", err)
	}
	if want.Ino != got.Ino || want.Dev != got.Dev {
		return errors.New("thread is not back in its original namespace")
	}
	return nil
}

// probeNamespaces checks that this process may switch threads between
// network namespaces, by having a locked thread enter the namespace it is
// already in. That takes CAP_SYS_ADMIN, as making a namespace does, and
// unlike making a throwaway one it leaves the kernel nothing to clean up.
func probeNamespaces() error {
	return onThreadIn("this thread's own namespace", func() error {
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Setns(fd, unix.CLONE_NEWNET)
	}, nil)
}

// ReadCounters returns the SNMP and netstat counters (see [ParseCounters])
// of the network namespace the calling thread is in: the test process's own
// namespace when called from an ordinary goroutine, ns when called from a
// function run by ns.Do. It reads /proc/thread-self/net rather than
// /proc/net, which shows the main thread's namespace.
func ReadCounters() (map[string]uint64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := make(map[string]uint64)
	for _, f := range []string{"snmp", "netstat", "snmp6"} {
		p := "/proc/thread-self/net/" + f
		data, err := os.ReadFile(p)
		if err != nil {
			if f == "snmp6" && errors.Is(err, os.ErrNotExist) {
				continue // no IPv6 in this kernel
			}
			return nil, fmt.Errorf("netns: read counters: %w", err)
		}
		if err := parseCountersInto(m, data); err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, p)
		}
	}
	return m, nil
}

// Counters returns the namespace's SNMP and netstat counters, keyed as
// nstat names them ("TcpExtTCPFastOpenPassive", "TcpActiveOpens",
// "UdpInDatagrams", "Ip6InReceives"). It fails the test if they cannot be
// read. Compare two calls to see what happened in between.
func (ns *NS) Counters(t testing.TB) map[string]uint64 {
	t.Helper()
	var m map[string]uint64
	err := ns.Do(func() (err error) {
		m, err = ReadCounters()
		return err
	})
	if err != nil {
		t.Fatalf("netns: counters of %s: %v", ns.name, err)
	}
	return m
}
