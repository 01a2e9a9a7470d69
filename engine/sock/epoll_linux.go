package sock

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// EpollWait waits up to timeoutMs for events on the epoll instance epfd
// with a raw epoll_pwait(2) (no signal mask; the call every architecture
// has) and returns how many were stored in events.
func EpollWait(epfd int, events []unix.EpollEvent, timeoutMs int) (int, unix.Errno) {
	if len(events) == 0 {
		return 0, unix.EINVAL
	}
	n, e := rawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(timeoutMs), 0, 8)
	if e != 0 {
		return 0, unix.Errno(e)
	}
	return int(n), 0
}

// EpollCtl adds, changes or removes fd on epfd with a raw epoll_ctl(2); the
// event's data carries fd and tag (in the Pad field), so a handler can find
// its flow without a lookup.
func EpollCtl(epfd, op, fd int, events uint32, tag int32) unix.Errno {
	ev := unix.EpollEvent{Events: events, Fd: int32(fd), Pad: tag}
	_, e := rawSyscall6(unix.SYS_EPOLL_CTL, uintptr(epfd), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(&ev)), 0, 0)
	return e
}

// SocketNonblock opens a non-blocking, close-on-exec socket with a raw
// socket(2).
func SocketNonblock(family, typ int) (int, unix.Errno) {
	return Socket(family, typ|unix.SOCK_NONBLOCK)
}

// SetNonblock makes fd non-blocking (or blocking again).
func SetNonblock(fd int, on bool) error {
	if err := unix.SetNonblock(fd, on); err != nil {
		return &OpError{Op: "fcntl O_NONBLOCK", Err: err}
	}
	return nil
}
