package client

import (
	"golang.org/x/sys/unix"

	"netscript/engine/cpu"
	"netscript/engine/npwire"
	"netscript/engine/sock"
)

// Detail is what a front end that prints all of netperf's output
// selectors reads of a test beyond its result (netperfcli): the first
// flow's data socket as it stood at the end of the test, this end's CPU
// state by state, and what a netserver answered. A test fills the Detail
// its Options point to; none is read without one.
type Detail struct {
	// The first flow's data socket, read once its loop ended and before
	// it closed: TCP_INFO, TCP_MAXSEG and TCP_CONGESTION for TCP (nil, -1
	// and "" for UDP and for a connection per transaction, whose sockets
	// are gone), and IP_TOS (IPV6_TCLASS over IPv6), -1 if unread.
	TCPInfo    *unix.TCPInfo
	MSS        int
	Congestion string
	TOS        int
	// Priority is the socket's SO_PRIORITY, -1 if unread.
	Priority int

	// LocalCPU is this end's system-wide CPU over the measured interval,
	// with cpu_util; nil without.
	LocalCPU *cpu.Utilization

	// Against a netserver: the first flow's answer to its request and its
	// results, as netserver sent them (omni tests; nil for TCP_CC).
	NetserverResponse *npwire.OmniResponse
	NetserverResults  *npwire.OmniResults
}

// captureDetail fills opt.Detail from the worker's first flow after the
// loops, before the sockets close.
func (r *run) captureDetail(w *worker) {
	d := r.opt.Detail
	if d == nil {
		return
	}
	d.TCPInfo, d.MSS, d.Congestion, d.TOS, d.Priority = nil, -1, "", -1, -1
	if r.cpu.on && r.cpu.err == nil && r.cpu.util.NumCPU > 0 {
		u := r.cpu.util
		d.LocalCPU = &u
	}
	if len(w.flows) == 0 || w.flows[0].fd < 0 {
		if !w.kind.Datagram && !w.kind.Unix {
			// A connection per transaction that ended between two: the
			// algorithm its next socket would have had, as netperf
			// reports for TCP_CRR.
			d.Congestion = nextCongestion(r.spec.Knobs.Congestion)
		}
		return
	}
	fd := w.flows[0].fd
	if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PRIORITY); err == nil {
		d.Priority = v
	}
	if sa, err := unix.Getsockname(fd); err == nil {
		if _, v6 := sa.(*unix.SockaddrInet6); v6 {
			if v, err := unix.GetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_TCLASS); err == nil {
				d.TOS = v
			}
		} else if v, err := unix.GetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_TOS); err == nil {
			d.TOS = v
		}
	}
	if w.kind.Datagram {
		return
	}
	var tr sock.TCPReader
	if ti, e := tr.Info(fd); e == 0 {
		info := *ti
		d.TCPInfo = &info
	}
	if v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_MAXSEG); err == nil {
		d.MSS = v
	}
	if cc, err := unix.GetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION); err == nil {
		d.Congestion = cc
	}
}

// nextCongestion is the congestion control a new TCP socket of the test
// would have: the one it asks for, else this namespace's default, read
// from a socket made for the purpose.
func nextCongestion(asked string) string {
	if asked != "" {
		return asked
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer unix.Close(fd)
	cc, err := unix.GetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	if err != nil {
		return ""
	}
	return cc
}
