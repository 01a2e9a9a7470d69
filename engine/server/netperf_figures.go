package server

import (
	"math"
	"os"
	"strings"

	"netscript/engine/npwire"
	"netscript/engine/proto"
)

// The figures a netperf test's response and results carry beyond the
// counts, filled as netserver 2.7.1 fills them, so netperf prints against
// this daemon what it prints against netserver: the socket options it
// set (TOS, congestion control), the rings it would use, its TCP
// connection's retransmissions and congestion control at the end, and in
// the fields netserver leaves unset what netserver's reused message
// buffer then holds.

// npKnobs are the socket options a DO_OMNI asks netserver to set on its
// data socket: IP_TOS when above 0, and the congestion control when this
// kernel offers it (netserver sets it and lets a failure show in what it
// reports, so an algorithm it lacks is no error).
func npKnobs(r *npwire.OmniRequest, tcp bool) *proto.Knobs {
	var k proto.Knobs
	given := false
	if r.SocketTOS > 0 && r.SocketTOS <= 255 {
		tos := int(r.SocketTOS)
		k.TOS, given = &tos, true
	}
	if tcp && r.CongControl != "" && congestionAvailable(r.CongControl) {
		k.Congestion, given = r.CongControl, true
	}
	if !given {
		return nil
	}
	return &k
}

// congestionAvailable reports whether name is one of this kernel's
// congestion control algorithms.
func congestionAvailable(name string) bool {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_available_congestion_control")
	if err != nil {
		return false
	}
	for _, a := range strings.Fields(string(b)) {
		if a == name {
			return true
		}
	}
	return false
}

// npRing is netserver's buffer ring width for a stream: one buffer more
// than its socket buffer holds, at least two.
func npRing(sockBuf, size int) int32 {
	if size <= 0 {
		return 2
	}
	return int32(max(sockBuf/size+1, 2))
}

// npResponseSizes fills a response's sizes and rings as netserver's
// recv_omni does: for each direction it runs, its request's size (or
// response's) and a ring of one, or a stream's size and ring; for the
// other, the request's values echoed. The TOS it reports is the one its
// socket has.
func (p *npPlan) npResponseSizes(r *npwire.OmniResponse, t *test) {
	q := p.omni
	r.SendSize, r.SendWidth = q.SendSize, int32(q.SendWidth)
	r.RecvSize, r.RecvWidth = q.RecvSize, int32(q.RecvWidth)
	if q.Direction&npwire.DirSend != 0 {
		if q.ResponseSize > 0 {
			r.SendSize, r.SendWidth = uint32(q.ResponseSize), max(int32(q.SendWidth), 1)
		} else {
			size := t.sendSize
			r.SendSize = uint32(size)
			if r.SendWidth = int32(q.SendWidth); r.SendWidth == 0 {
				r.SendWidth = npRing(t.buffers.Send, size)
			}
		}
	}
	if q.Direction&npwire.DirRecv != 0 {
		if q.RequestSize > 0 {
			r.RecvSize, r.RecvWidth = uint32(q.RequestSize), max(int32(q.RecvWidth), 1)
		} else {
			size := int(int32(q.RecvSize))
			if size <= 0 {
				// netserver receives a socket buffer at a time
				size = t.buffers.Recv
				if size <= 0 {
					size = 4096
				}
			}
			r.RecvSize = uint32(size)
			if r.RecvWidth = int32(q.RecvWidth); r.RecvWidth == 0 {
				r.RecvWidth = npRing(t.buffers.Recv, size)
			}
		}
	}
}

// npResultsFigures fills the results beyond the counts as netserver does.
// Its TCP connection's retransmissions and congestion control at the end
// of the test (-1 and none for UDP and a connection per transaction,
// whose last socket netserver has closed); with the CPU measured, the
// method and CPU count. The CPU fields it does not fill still hold what
// its message buffer last held, the response it sent before the test:
// netperf prints them (REMOTE_CPU_PERCENT_SWINTR is the response's
// socket priority read as a float, -nan for -1).
func (p *npPlan) npResultsFigures(res *npwire.OmniResults, r *npResult, resp *npwire.OmniResponse) {
	res.TransportRetrans, res.CongControl = -1, ""
	tcp := r.counts.TCP
	if !p.w.Datagram && !p.w.PerTransaction && tcp.Conns > 0 {
		res.TransportRetrans = int32(min(tcp.Retrans, math.MaxInt32))
		if p.omni.Flags&npwire.OmniRoutingAllowed != 0 && tcp.Congestion != "mixed" {
			res.CongControl = tcp.Congestion
		}
	}
	res.ServDem = math.Float32frombits(uint32(resp.SocketTOS))
	if r.cpu {
		return
	}
	res.CPUUtil = math.Float32frombits(resp.DataPort)
	res.CPUPercentUser = math.Float32frombits(resp.IntervalBurst)
	res.CPUPercentSystem = math.Float32frombits(resp.IntervalUsecs)
	res.CPUPercentIOWait = math.Float32frombits(resp.CPUFrequency)
	res.CPUPercentIRQ = math.Float32frombits(resp.SecurityInfo)
	res.CPUPercentSWIntr = math.Float32frombits(uint32(resp.SocketPrio))
	res.CPUMethod, res.NumCPUs = npwire.CPUUnknown, 0
	res.PeakCPUID, res.PeakCPUUtil = 0, 0
}
