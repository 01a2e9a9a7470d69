//go:build linux && (amd64 || arm64)

package sock

import (
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TickSignal is the real-time signal a Ticker sends. netscript uses it for
// nothing else; a program embedding this package must not ask os/signal
// for it.
const TickSignal = 61

// kernelSigaction is struct sigaction as rt_sigaction(2) takes it on the
// architectures this file builds for.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// kernelSigevent is struct sigevent with SIGEV_THREAD_ID's thread id.
type kernelSigevent struct {
	value  uintptr
	signo  int32
	notify int32
	tid    int32
	_      [44]byte
}

const (
	sigevThreadID = 4          // SIGEV_THREAD_ID
	saRestart     = 0x10000000 // SA_RESTART
	sigDfl        = 0
	sigIgn        = 1
)

// Ticker makes the blocking system calls of one OS thread return EINTR at
// least once per period, with no timeout on any socket: a POSIX timer sends
// TickSignal to the thread, and the signal's handler (the Go runtime's,
// which ignores it) is installed without SA_RESTART. A loop that handles
// EINTR like a timeout then notices Stop and its deadline, and the runtime
// can stop the world, within a period, as with SetTick, but without the
// two setsockopt calls SetTick costs every new connection (TCP_CRR makes
// tens of thousands a second) and without a kernel timer armed and cancelled
// on every wait.
type Ticker struct {
	id int32
}

// errNoHandler says the runtime did not install a handler for TickSignal,
// so a Ticker could not interrupt anything (or would kill the process).
var errNoHandler = errors.New("the Go runtime has no handler for it")

// StartTicker locks the calling goroutine to its OS thread (the lock
// nests with any the caller holds) and arms a Ticker for that thread. The
// goroutine must Stop it, which deletes the timer and then drops the lock,
// so the signal never reaches whatever the thread runs next.
func StartTicker(period time.Duration) (Ticker, error) {
	runtime.LockOSThread()
	t, err := startTicker(period)
	if err != nil {
		runtime.UnlockOSThread()
	}
	return t, err
}

func startTicker(period time.Duration) (Ticker, error) {
	if err := noRestart(TickSignal); err != nil {
		return Ticker{}, fmt.Errorf("ticker: signal %d: %w", TickSignal, err)
	}
	ev := kernelSigevent{signo: TickSignal, notify: sigevThreadID, tid: int32(unix.Gettid())}
	var id int32
	if _, en := rawSyscall6(unix.SYS_TIMER_CREATE, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&ev)), uintptr(unsafe.Pointer(&id)), 0, 0, 0); en != 0 {
		return Ticker{}, &OpError{Op: "timer_create", Err: en}
	}
	ts := unix.NsecToTimespec(period.Nanoseconds())
	spec := [2]unix.Timespec{ts, ts} // interval, first expiry
	if _, en := rawSyscall6(unix.SYS_TIMER_SETTIME, uintptr(id), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0); en != 0 {
		rawSyscall6(unix.SYS_TIMER_DELETE, uintptr(id), 0, 0, 0, 0, 0)
		return Ticker{}, &OpError{Op: "timer_settime", Err: en}
	}
	return Ticker{id: id}, nil
}

// Stop deletes the timer, then unlocks the goroutine from its thread as
// StartTicker locked it; no signal comes after it returns.
func (t Ticker) Stop() {
	rawSyscall6(unix.SYS_TIMER_DELETE, uintptr(t.id), 0, 0, 0, 0, 0)
	runtime.UnlockOSThread()
}

// noRestart clears SA_RESTART from the handler of sig, keeping the handler
// and everything else as the runtime installed them. It is idempotent.
func noRestart(sig int) error {
	var sa kernelSigaction
	if _, en := rawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&sa)), 8, 0, 0); en != 0 {
		return &OpError{Op: "rt_sigaction", Err: en}
	}
	if sa.handler == sigDfl || sa.handler == sigIgn {
		return errNoHandler
	}
	if sa.flags&saRestart == 0 {
		return nil
	}
	sa.flags &^= saRestart
	if _, en := rawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0); en != 0 {
		return &OpError{Op: "rt_sigaction", Err: en}
	}
	return nil
}
