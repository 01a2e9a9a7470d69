//go:build linux && (amd64 || arm64)

package sock

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pair returns a connected stream socket pair with no timeouts: a read on
// either end blocks until the other end writes.
func pair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// rescue has another process write one byte to fd after d: the way out
// for a thread blocked in a read when the Ticker under test does not work.
// It has to be another process: while the runtime waits to stop the world,
// no goroutine of this one runs.
func rescue(t *testing.T, fd int, d time.Duration) {
	t.Helper()
	f := os.NewFile(uintptr(fd), "rescue")
	cmd := exec.Command("sh", "-c", fmt.Sprintf("sleep %.1f; printf x", d.Seconds()))
	cmd.Stdout = f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its sleep too is killed at the end
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
}

// readOnce runs one blocking Read of fd on a locked thread, with a Ticker
// of period on it if period > 0 (stopped before the read when stopFirst),
// and sends what Read returned.
func readOnce(fd int, period time.Duration, stopFirst bool) <-chan unix.Errno {
	out := make(chan unix.Errno, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if period > 0 {
			tk, err := StartTicker(period)
			if err != nil {
				out <- unix.ENOSYS
				return
			}
			if stopFirst {
				tk.Stop()
			} else {
				defer tk.Stop()
			}
		}
		var b [1]byte
		_, en := Read(fd, b[:])
		out <- en
	}()
	return out
}

// TestTickerInterrupts: a read blocked on a socket without timeouts returns
// EINTR once the thread's Ticker fires (the runtime's own signals restart
// it). A byte another process writes after 40 s keeps a broken Ticker from
// hanging the test: the read would return it.
func TestTickerInterrupts(t *testing.T) {
	a, b := pair(t)
	rescue(t, b, 40*time.Second)
	if en := <-readOnce(a, 20*time.Millisecond, false); en != unix.EINTR {
		t.Fatalf("read under a 20 ms ticker returned errno %v (%d), want EINTR", en, en)
	}
}

// TestTickerStop: after Stop, nothing interrupts the thread: a read waits
// for its data.
func TestTickerStop(t *testing.T) {
	a, b := pair(t)
	got := readOnce(a, 10*time.Millisecond, true)
	time.Sleep(200 * time.Millisecond) // twenty periods
	if _, err := unix.Write(b, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if en := <-got; en != 0 {
		t.Fatalf("read after Stop returned errno %v, want the byte", en)
	}
}

// TestTickerLetsTheWorldStop: a garbage collection (which must stop every
// goroutine, including one blocked in a raw system call) completes while a
// locked thread with a 20 ms Ticker waits on a socket that never gets
// data (and has no timeout). A byte another process writes after 40 s keeps
// a broken Ticker from hanging the test: a collection that had to wait for
// it took seconds instead of periods.
func TestTickerLetsTheWorldStop(t *testing.T) {
	a, b := pair(t)
	rescue(t, b, 40*time.Second)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tk, err := StartTicker(20 * time.Millisecond)
		if err != nil {
			t.Error(err)
			return
		}
		defer tk.Stop()
		var buf [1]byte
		for {
			_, en := Read(a, buf[:])
			if en != unix.EINTR {
				return
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	runtime.GC()
	if d := time.Since(t0); d >= 20*time.Second { // the rescue's byte comes at 40 s
		t.Errorf("GC took %v beside a thread blocked in a read: it waited for the socket timeout, not the ticker", d)
	}
	close(stop)
	<-done
}

// TestNoRestartKeepsHandler: clearing SA_RESTART keeps the runtime's
// handler and is idempotent.
func TestNoRestartKeepsHandler(t *testing.T) {
	var before, after kernelSigaction
	get := func(sa *kernelSigaction) {
		if _, en := rawSyscall6(unix.SYS_RT_SIGACTION, TickSignal, 0, uintptr(unsafe.Pointer(sa)), 8, 0, 0); en != 0 {
			t.Fatal(en)
		}
	}
	get(&before)
	for range 2 {
		if err := noRestart(TickSignal); err != nil {
			t.Fatal(err)
		}
	}
	get(&after)
	if after.handler != before.handler || after.flags&saRestart != 0 || after.flags|saRestart != before.flags|saRestart {
		t.Fatalf("before %+v, after %+v", before, after)
	}
}
