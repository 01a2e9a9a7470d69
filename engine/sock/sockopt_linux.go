package sock

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetInt sets an integer socket option with a raw setsockopt(2), for use on
// the data path (TCP_CRR sets options on every new connection).
func SetInt(fd, level, opt, value int) unix.Errno {
	v := int32(value)
	_, e := rawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt),
		uintptr(unsafe.Pointer(&v)), 4, 0)
	return e
}

// SetTickRaw sets the receive and send timeouts of fd to d with raw calls.
func SetTickRaw(fd int, d time.Duration) unix.Errno {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	for _, opt := range [2]int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		_, e := rawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, uintptr(opt),
			uintptr(unsafe.Pointer(&tv)), unsafe.Sizeof(tv), 0)
		if e != 0 {
			return e
		}
	}
	return 0
}

// SetRecvTimeout sets only the receive timeout of fd.
func SetRecvTimeout(fd int, d time.Duration) error {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return &OpError{Op: "setsockopt SO_RCVTIMEO", Err: err}
	}
	return nil
}

// ConnectWait connects fd to a on the data path. A connect interrupted by
// the send timeout or a signal goes on in the kernel; ConnectWait then polls
// for its outcome, one tick at a time, until it completes or giveUp returns
// true. It returns 0 on success.
func ConnectWait(fd int, a *Addr, giveUp func() bool) unix.Errno {
	en := Connect(fd, a)
	for en == unix.EINTR || en == unix.EINPROGRESS || en == unix.EALREADY || en == unix.EAGAIN {
		if giveUp() {
			return unix.ETIMEDOUT
		}
		ev, pen := Poll(fd, unix.POLLOUT, int(Tick/time.Millisecond))
		if pen != 0 && pen != unix.EINTR {
			return pen
		}
		if ev == 0 {
			continue
		}
		return soErrorRaw(fd)
	}
	if en == unix.EISCONN {
		return 0
	}
	return en
}

func soErrorRaw(fd int) unix.Errno {
	var v int32
	l := uint32(4)
	_, e := rawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_ERROR,
		uintptr(unsafe.Pointer(&v)), uintptr(unsafe.Pointer(&l)), 0)
	if e != 0 {
		return e
	}
	return unix.Errno(v)
}
