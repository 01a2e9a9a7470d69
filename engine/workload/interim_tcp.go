package workload

import "netscript/engine/sock"

// InterimTCP reads a flow's connection's TCP_INFO into each interim
// sample, once per interval (not per transaction), as iperf3's interval
// lines show retransmits and the congestion window.
type InterimTCP struct {
	FD   int    // the flow's data connection
	Base uint32 // tcpi_total_retrans at the start of the measured interval
	// AckedBase is tcpi_bytes_acked at the start of the measured interval.
	AckedBase uint64
	r         sock.TCPReader
}

// read fills s's TCP figures from one TCP_INFO reading; a failed read
// leaves them out.
func (t *InterimTCP) read(s *Sample) {
	ti, e := t.r.Info(t.FD)
	if e != 0 {
		return
	}
	s.Retrans, s.Cwnd, s.TCP = ti.Total_retrans-t.Base, ti.Snd_cwnd, true
	s.Acked = ti.Bytes_acked - min(ti.Bytes_acked, t.AckedBase)
	if ti.Rtt > 0 {
		s.RTTSum, s.RTTConns = uint64(ti.Rtt), 1
	}
	if ti.Rcv_rtt > 0 {
		s.RcvRTTSum, s.RcvRTTConns = uint64(ti.Rcv_rtt), 1
	}
}
