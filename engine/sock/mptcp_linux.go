package sock

import (
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"netscript/engine/result"
)

// MPTCP: a stream socket of IPPROTO_MPTCP is one connection made of
// subflows, each a TCP connection of its own, over the paths the path
// managers of both ends agree on (ip mptcp endpoint, ip mptcp limits).

// The kernel's SOL_MPTCP options (linux/mptcp.h).
const (
	solMPTCP     = 284
	mptcpInfo    = 1 // MPTCP_INFO: struct mptcp_info
	mptcpTCPInfo = 2 // MPTCP_TCPINFO: struct mptcp_subflow_data, then a tcp_info per subflow

	mptcpInfoFlagFallback = 1 // MPTCP_INFO_FLAG_FALLBACK: the connection fell back to plain TCP
)

// MaxSubflows is the most subflows the kernel lets one MPTCP connection
// have (MPTCP_PM_MAX_SUBFLOWS... its limit of `ip mptcp limits set
// subflow`), and so the most an MPTCPReader reads.
const MaxSubflows = 8

func (o Options) proto() int {
	if o.MPTCP {
		return unix.IPPROTO_MPTCP
	}
	return 0
}

// MPTCPError is a socket of IPPROTO_MPTCP that a kernel refused: it does
// not offer MPTCP, or it is turned off.
type MPTCPError struct {
	End     string     // "client" or "server": whose kernel; "" this machine's
	Err     unix.Errno // what socket(2) said
	Enabled int        // net.mptcp.enabled of the caller's network namespace; -1 unknown
}

// NoMPTCP is the error of a socket(2) of IPPROTO_MPTCP that failed with en,
// with the network namespace's net.mptcp.enabled read to say why.
func NoMPTCP(en unix.Errno) *MPTCPError {
	e := &MPTCPError{Err: en, Enabled: -1}
	if b, err := os.ReadFile("/proc/sys/net/mptcp/enabled"); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			e.Enabled = v
		}
	}
	return e
}

func (e *MPTCPError) Error() string {
	who := "this machine's kernel"
	if e.End != "" {
		who = "the " + e.End + "'s kernel"
	}
	switch {
	case e.Enabled == 0:
		return who + " has MPTCP turned off: net.mptcp.enabled is 0 (sysctl -w net.mptcp.enabled=1)"
	case e.Enabled < 0 || e.Err == unix.EPROTONOSUPPORT || e.Err == unix.EAFNOSUPPORT:
		return who + " does not offer MPTCP (socket: " + ErrnoName(e.Err) + "; it was built without CONFIG_MPTCP)"
	}
	return who + " refused an MPTCP socket: " + e.Err.Error() + " (" + ErrnoName(e.Err) + ")"
}

// Unwrap returns the errno.
func (e *MPTCPError) Unwrap() error { return e.Err }

// IsMPTCP reports whether fd is a socket of IPPROTO_MPTCP.
func IsMPTCP(fd int) bool {
	p, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	return err == nil && p == unix.IPPROTO_MPTCP
}

// sizeofTCPInfo is the tcp_info this package reads, as the kernel is told
// (it copies what both know of and zeroes nothing past that).
const sizeofTCPInfo = int(unsafe.Sizeof(unix.TCPInfo{}))

// subflowHeader is struct mptcp_subflow_data.
type subflowHeader struct {
	sizeHeader, num, sizeKernel, sizeUser uint32
}

// MPTCPReader reads an MPTCP connection's subflows with raw getsockopt(2)
// calls into a buffer it owns (no allocation per reading).
type MPTCPReader struct {
	hdr   subflowHeader
	infos [MaxSubflows]unix.TCPInfo // right after hdr, as the kernel writes them (TestMPTCPReaderLayout)
	n     uint32
	info  [96]byte // struct mptcp_info's first bytes
}

// Subflows reads fd's subflows and returns how many there are (at most
// MaxSubflows are read) and whether the connection fell back to plain TCP
// (then it has the one). Subflow(i) gives each one's TCP_INFO.
func (r *MPTCPReader) Subflows(fd int) (n int, fallback bool, en unix.Errno) {
	r.hdr = subflowHeader{sizeHeader: uint32(unsafe.Sizeof(r.hdr)), sizeUser: uint32(sizeofTCPInfo)}
	r.n = uint32(unsafe.Sizeof(r.hdr)) + uint32(len(r.infos)*sizeofTCPInfo)
	_, e := rawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), solMPTCP, mptcpTCPInfo,
		uintptr(unsafe.Pointer(&r.hdr)), uintptr(unsafe.Pointer(&r.n)), 0)
	if e == unix.EOPNOTSUPP {
		return 1, true, 0 // a connection that fell back has no MPTCP options left
	}
	if e != 0 {
		return 0, false, e
	}
	n = int(r.hdr.num)
	if f, e := r.flags(fd); e == 0 && f&mptcpInfoFlagFallback != 0 {
		fallback = true
	}
	return n, fallback, 0
}

// flags reads mptcp_info's mptcpi_flags.
func (r *MPTCPReader) flags(fd int) (uint32, unix.Errno) {
	r.n = uint32(len(r.info))
	_, e := rawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), solMPTCP, mptcpInfo,
		uintptr(unsafe.Pointer(&r.info[0])), uintptr(unsafe.Pointer(&r.n)), 0)
	if e != 0 {
		return 0, e
	}
	// u8 subflows, add_addr_signal, add_addr_accepted, subflows_max,
	// add_addr_signal_max, add_addr_accepted_max; u32 flags at 8.
	return *(*uint32)(unsafe.Pointer(&r.info[8])), 0
}

// Subflow puts the TCP_INFO of subflow i of the last Subflows reading
// into c (false if the reading has no such subflow).
func (r *MPTCPReader) Subflow(i int, c *result.TCPConn) bool {
	if i < 0 || i >= int(r.hdr.num) || i >= len(r.infos) {
		return false
	}
	connOf(&r.infos[i], c)
	return true
}

// AcceptTick is Accept for a listener of IPPROTO_MPTCP, whose accept(2)
// waits on its first subflow and so ignores the SO_RCVTIMEO that bounds
// every other blocking call of the data path: it asks poll(2) for a
// connection for at most Tick and returns EAGAIN if none came. The
// listener should be non-blocking (SetNonblock), so one that another
// thread took between the poll and the accept is EAGAIN too, never a wait.
func AcceptTick(fd int, peer *Addr) (int, unix.Errno) {
	ev, en := Poll(fd, unix.POLLIN, int(Tick/time.Millisecond))
	if en != 0 {
		return -1, en
	}
	if ev == 0 {
		return -1, unix.EAGAIN
	}
	return Accept(fd, peer)
}
