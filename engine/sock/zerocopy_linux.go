package sock

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ZeroCopy sends with MSG_ZEROCOPY and reads the kernel's completions from
// the socket's error queue, into buffers it owns: after NewZeroCopy it
// allocates nothing. The buffer sent must not change until its send is
// completed; the stream loops send one constant buffer.
type ZeroCopy struct {
	Sends     uint64 // sends made with MSG_ZEROCOPY that the kernel took
	Completed uint64 // of those, sends the kernel has said it is done with
	Copied    uint64 // of those, sends it copied after all (SO_EE_CODE_ZEROCOPY_COPIED: loopback, and devices without scatter-gather)

	fd  int
	msg unix.Msghdr
	ctl [256]byte
}

// NewZeroCopy turns SO_ZEROCOPY on for fd.
func NewZeroCopy(fd int) (*ZeroCopy, error) {
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1); err != nil {
		return nil, &OpError{Op: "setsockopt SO_ZEROCOPY", Err: err}
	}
	return &ZeroCopy{fd: fd}, nil
}

// Send sends b with MSG_ZEROCOPY; on ENOBUFS it reads the completions and,
// only if some were waiting (too many sends not yet completed was the
// cause), tries once more. Any other ENOBUFS (a full UDP queue) is the
// caller's to count, as without zerocopy.
func (z *ZeroCopy) Send(b []byte) (int, unix.Errno) {
	n, e := z.send(b)
	if e == unix.ENOBUFS {
		before := z.Completed
		z.Reap()
		if z.Completed > before {
			n, e = z.send(b)
		}
	}
	return n, e
}

func (z *ZeroCopy) send(b []byte) (int, unix.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	n, e := rawSyscall6(unix.SYS_SENDTO, uintptr(z.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_ZEROCOPY, 0, 0)
	if e != 0 {
		return 0, e
	}
	z.Sends++
	return int(n), 0
}

// sockExtendedErr is struct sock_extended_err.
type sockExtendedErr struct {
	Errno  uint32
	Origin uint8
	Type   uint8
	Code   uint8
	Pad    uint8
	Info   uint32
	Data   uint32
}

// Reap reads every completion waiting in the error queue, without
// blocking, and counts them.
func (z *ZeroCopy) Reap() {
	for {
		z.msg = unix.Msghdr{Control: &z.ctl[0]}
		z.msg.SetControllen(len(z.ctl))
		_, e := rawSyscall6(unix.SYS_RECVMSG, uintptr(z.fd), uintptr(unsafe.Pointer(&z.msg)), unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT, 0, 0, 0)
		if e != 0 {
			return // EAGAIN: the queue is empty
		}
		z.parse(z.ctl[:z.msg.Controllen])
	}
}

// parse counts the zero-copy completions among the control messages in b.
func (z *ZeroCopy) parse(b []byte) {
	for len(b) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
		l := int(h.Len)
		if l < unix.SizeofCmsghdr || l > len(b) {
			return
		}
		recverr := (h.Level == unix.SOL_IP && h.Type == unix.IP_RECVERR) || (h.Level == unix.SOL_IPV6 && h.Type == unix.IPV6_RECVERR)
		if recverr && l >= unix.SizeofCmsghdr+int(unsafe.Sizeof(sockExtendedErr{})) {
			ee := (*sockExtendedErr)(unsafe.Pointer(&b[unix.SizeofCmsghdr]))
			if ee.Origin == unix.SO_EE_ORIGIN_ZEROCOPY && ee.Errno == 0 {
				n := uint64(ee.Data-ee.Info) + 1
				z.Completed += n
				if ee.Code&unix.SO_EE_CODE_ZEROCOPY_COPIED != 0 {
					z.Copied += n
				}
			}
		}
		adv := (l + unix.SizeofPtr - 1) &^ (unix.SizeofPtr - 1)
		if adv > len(b) {
			return
		}
		b = b[adv:]
	}
}

// Finish waits up to timeout for the completions of every send (after the
// measured interval).
func (z *ZeroCopy) Finish(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for {
		z.Reap()
		if z.Completed >= z.Sends || time.Now().After(deadline) {
			return
		}
		Poll(z.fd, unix.POLLERR, 10)
	}
}
