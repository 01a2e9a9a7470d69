package sock

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Knobs are the socket options a test may set on its data sockets, on
// both ends (spec validates them; the control protocol carries them).
type Knobs struct {
	Congestion    string // TCP_CONGESTION; "" keeps the default
	MaxPacingRate uint64 // SO_MAX_PACING_RATE in bits/s on the sending end; 0: none
	TOS           int    // IP_TOS or IPV6_TCLASS, with HasTOS
	HasTOS        bool
	NotsentLowat  int  // TCP_NOTSENT_LOWAT in bytes; 0: none
	MSS           int  // TCP_MAXSEG before connect (or listen); 0: none
	BusyPoll      int  // SO_BUSY_POLL in µs; 0: none
	Cork          bool // TCP_CORK on stream sockets
	QuickAck      bool // TCP_QUICKACK, re-armed after each receive
	TCPInfo       bool // tcp_crr: TCP_INFO of every connection
	ZeroCopy      bool // MSG_ZEROCOPY sends on the client (tcp_stream, udp_stream)
}

// Given reports whether any knob that sets a socket option is given.
func (k *Knobs) Given() bool {
	return k.Congestion != "" || k.MaxPacingRate != 0 || k.HasTOS || k.NotsentLowat != 0 || k.MSS != 0 ||
		k.BusyPoll != 0 || k.Cork || k.QuickAck
}

// KnobError is a knob the kernel refused on one end.
type KnobError struct {
	Option string // the option's name ("congestion")
	End    string // "client" or "server"
	Err    unix.Errno
	Extra  string // more to say: the algorithms this kernel offers
}

// KnobErrno is the errno of a knob the kernel refused (Knobs.Apply's
// error), so a loop counts it like any failed call; EINVAL for an error of
// another kind.
func KnobErrno(err error) unix.Errno {
	var ke *KnobError
	if errors.As(err, &ke) {
		return ke.Err
	}
	return unix.EINVAL
}

func (e *KnobError) Error() string {
	msg := fmt.Sprintf("%s: the %s's kernel refused it: %s (%s)", e.Option, e.End, e.Err.Error(), ErrnoName(e.Err))
	if e.Extra != "" {
		msg += "; " + e.Extra
	}
	return msg
}

func (e *KnobError) Unwrap() error { return e.Err }

// Apply sets the knobs on fd, a TCP (stream) or UDP socket of family;
// sends says whether this end sends the test's bulk data (max_pacing_rate
// is set only there; a request/response test's ends both send). It
// allocates nothing unless the kernel refuses: tcp_crr calls it per
// connection. end names this end in the error.
func (k *Knobs) Apply(fd, family int, stream, sends bool, end string) error {
	set := func(name string, level, opt, v int) error {
		if en := SetInt(fd, level, opt, v); en != 0 {
			return &KnobError{Option: name, End: end, Err: en}
		}
		return nil
	}
	if k.Congestion != "" && stream {
		if en := setCongestion(fd, k.Congestion); en != 0 {
			e := &KnobError{Option: "congestion", End: end, Err: en}
			if en == unix.ENOENT || en == unix.EPERM {
				e.Extra = "it offers " + availableCongestion()
			}
			return e
		}
	}
	if k.MaxPacingRate != 0 && sends {
		v := k.MaxPacingRate / 8 // the kernel keeps bytes/s
		if v > 1<<32-2 {
			v = 1<<32 - 2 // the largest a 32-bit option takes below "unlimited"
		}
		if en := setUint32(fd, unix.SOL_SOCKET, unix.SO_MAX_PACING_RATE, uint32(v)); en != 0 {
			return &KnobError{Option: "max_pacing_rate", End: end, Err: en}
		}
	}
	if k.HasTOS {
		level, opt := unix.IPPROTO_IP, unix.IP_TOS
		if family == unix.AF_INET6 {
			level, opt = unix.IPPROTO_IPV6, unix.IPV6_TCLASS
		}
		if err := set("tos", level, opt, k.TOS); err != nil {
			return err
		}
	}
	if !stream {
		if k.BusyPoll != 0 {
			return set("busy_poll", unix.SOL_SOCKET, unix.SO_BUSY_POLL, k.BusyPoll)
		}
		return nil
	}
	if k.NotsentLowat != 0 {
		if err := set("notsent_lowat", unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, k.NotsentLowat); err != nil {
			return err
		}
	}
	if k.MSS != 0 {
		if err := set("mss", unix.IPPROTO_TCP, unix.TCP_MAXSEG, k.MSS); err != nil {
			return err
		}
	}
	if k.BusyPoll != 0 {
		if err := set("busy_poll", unix.SOL_SOCKET, unix.SO_BUSY_POLL, k.BusyPoll); err != nil {
			return err
		}
	}
	if k.Cork {
		if err := set("cork", unix.IPPROTO_TCP, unix.TCP_CORK, 1); err != nil {
			return err
		}
	}
	if k.QuickAck {
		if err := set("quickack", unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1); err != nil {
			return err
		}
	}
	return nil
}

// QuickAck re-arms TCP_QUICKACK on fd (the kernel clears it as it
// leaves quick-ack mode), with one raw call.
func QuickAck(fd int) { SetInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1) }

func setUint32(fd, level, opt int, v uint32) unix.Errno {
	_, e := rawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt),
		uintptr(unsafe.Pointer(&v)), 4, 0)
	return e
}

func setCongestion(fd int, name string) unix.Errno {
	var b [16]byte
	n := copy(b[:15], name)
	_, e := rawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION,
		uintptr(unsafe.Pointer(&b[0])), uintptr(n), 0)
	return e
}

// availableCongestion is net.ipv4.tcp_available_congestion_control of this
// network namespace, as a phrase.
func availableCongestion() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil {
		return "an unknown list (net.ipv4.tcp_available_congestion_control: " + err.Error() + ")"
	}
	return strings.Join(strings.Fields(string(b)), ", ") + " (net.ipv4.tcp_available_congestion_control)"
}
