package netperfcli

import "net/netip"

// The figures of each end as netperf's variables hold them, from the
// last iteration: this end's from the engine's result and its reading of
// the data socket, the far end's from a netserver's answer and results,
// or from a netscript server's result, or netperf's placeholders without
// a control connection.

// connected reports whether the test kept one TCP connection whose socket
// was read at its end (not UDP, not a connection per transaction).
func (c *Command) connected() bool { return c.Test.Protocol == protoTCP && !c.Test.Connection }

func (c *Command) lss(f *Figures) int { return f.Last.Config.LocalSendBuffer }
func (c *Command) lsr(f *Figures) int { return f.Last.Config.LocalRecvBuffer }

// lssEnd and lsrEnd are this end's buffers at the end of the test: read
// then when the kernel's default was taken (autotuning may have grown
// them), else as granted.
func (c *Command) lssEnd(f *Figures) int {
	return endSize(c.Test.LSSReq, f.Last.Config.LocalSendBufferEnd, c.lss(f))
}
func (c *Command) lsrEnd(f *Figures) int {
	return endSize(c.Test.LSRReq, f.Last.Config.LocalRecvBufferEnd, c.lsr(f))
}

func endSize(req, end, granted int) int {
	if req < 0 && end > 0 {
		return end
	}
	return granted
}

// The far end's buffers: a netserver's answer and results, a netscript
// server's report; netperf's 0 and -1 without a control connection.
func (c *Command) rss(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(r.SendBufSize)
	}
	if c.NoControl {
		return 0
	}
	return f.Last.Config.RemoteSendBuffer
}

func (c *Command) rsr(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(r.RecvBufSize)
	}
	if c.NoControl {
		return 0
	}
	return f.Last.Config.RemoteRecvBuffer
}

func (c *Command) rssEnd(f *Figures) int {
	if r := f.it.d.NetserverResults; r != nil {
		return int(r.SendBufSize)
	}
	if c.NoControl {
		return -1
	}
	return endSize(c.Test.RSSReq, f.Last.Config.RemoteSendBufferEnd, c.rss(f))
}

func (c *Command) rsrEnd(f *Figures) int {
	if r := f.it.d.NetserverResults; r != nil {
		return int(r.RecvBufSize)
	}
	if c.NoControl {
		return -1
	}
	return endSize(c.Test.RSRReq, f.Last.Config.RemoteRecvBufferEnd, c.rsr(f))
}

// localSendSize is netperf's send_size: what a sending stream test sent
// per call, else the -m given (0 when none).
func (c *Command) localSendSize(f *Figures) int {
	if c.Test.Direction == dirXmit {
		return f.Last.Config.SendSize
	}
	return c.Test.SendSize
}

// localRecvSize is netperf's recv_size.
func (c *Command) localRecvSize(f *Figures) int {
	if c.Test.Direction == dirRecv {
		return f.Last.Config.RecvSize
	}
	return c.Test.RecvSize
}

// remoteSendSize is what the far end says it sends per call: the
// response size of a request/response test, a sending server's send size,
// else the -m ,remote asked for (-1 when none).
func (c *Command) remoteSendSize(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(int32(r.SendSize))
	}
	switch {
	case c.NoControl:
		return -1
	case c.isRR():
		return c.Test.RspSize
	case c.Test.Direction == dirRecv:
		return f.Last.Config.SendSize
	}
	return c.Test.RemoteSendSize
}

func (c *Command) remoteRecvSize(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(int32(r.RecvSize))
	}
	switch {
	case c.NoControl:
		return -1
	case c.isRR():
		return c.Test.ReqSize
	case c.Test.Direction == dirXmit:
		return f.Last.Config.RecvSize
	}
	return c.Test.RemoteRecvSize
}

// The calls of each end: a stream's own counts; a request/response
// test's a send and a receive per transaction (the send of one still in
// flight at the end counted, as netperf counts it).
func (c *Command) localSendCalls(f *Figures) uint64 {
	r := f.Last
	if c.isRR() {
		if c.Test.Connection {
			return r.Transactions
		}
		return r.Transactions + r.Discarded
	}
	return r.SendCalls
}

func (c *Command) localRecvCalls(f *Figures) uint64 {
	if c.isRR() {
		return f.Last.Transactions
	}
	return f.Last.RecvCalls
}

func (c *Command) remoteSendCalls(f *Figures) uint64 {
	if r := f.it.d.NetserverResults; r != nil {
		return uint64(r.SendCalls)
	}
	if p := f.Last.Remote; p != nil {
		if c.isRR() {
			return p.Transactions
		}
		return p.SendCalls
	}
	return 0
}

func (c *Command) remoteRecvCalls(f *Figures) uint64 {
	if r := f.it.d.NetserverResults; r != nil {
		return uint64(r.RecvCalls)
	}
	if p := f.Last.Remote; p != nil {
		if c.isRR() {
			return p.Transactions
		}
		return p.RecvCalls
	}
	return 0
}

// remoteXferd is netperf's remote_bytes_xferd: the far end's bytes both
// ways, or without a control connection what this end sent.
func (c *Command) remoteXferd(f *Figures) float64 {
	if c.NoControl {
		return float64(f.Last.BytesSent)
	}
	s, r := c.remoteBytes(f.it)
	return float64(s) + float64(r)
}

// width is netperf's buffer ring width for a stream: one buffer more than
// the socket buffer holds, at least two.
func width(sockBuf, size int) int {
	if size <= 0 {
		return 2
	}
	return max(sockBuf/size+1, 2)
}

// localSendWidth is netperf's send_width: -W, else one buffer for a
// request, else a stream sender's ring.
func (c *Command) localSendWidth(f *Figures) int {
	switch {
	case c.SendWidth != 0 || c.Test.Direction&dirXmit == 0:
		return c.SendWidth
	case c.Test.ReqSize > 0:
		return 1
	}
	return width(c.lss(f), c.localSendSize(f))
}

func (c *Command) localRecvWidth(f *Figures) int {
	switch {
	case c.RecvWidth != 0 || c.Test.Direction&dirRecv == 0:
		return c.RecvWidth
	case c.Test.RspSize > 0:
		return 1
	}
	return width(c.lsr(f), c.localRecvSize(f))
}

// remoteSendWidth and remoteRecvWidth are the far end's rings as
// netserver sets them: its own for the directions it runs, else this
// end's widths echoed.
func (c *Command) remoteSendWidth(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(r.SendWidth)
	}
	if c.NoControl {
		return 0
	}
	switch {
	case c.Test.Direction&dirRecv == 0:
		return c.localSendWidth(f)
	case c.Test.RspSize > 0:
		return max(c.localSendWidth(f), 1)
	}
	return width(c.rss(f), c.remoteSendSize(f))
}

func (c *Command) remoteRecvWidth(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(r.RecvWidth)
	}
	if c.NoControl {
		return 0
	}
	switch {
	case c.Test.Direction&dirXmit == 0:
		return c.localRecvWidth(f)
	case c.Test.ReqSize > 0:
		return max(c.localRecvWidth(f), 1)
	}
	return width(c.rsr(f), c.remoteRecvSize(f))
}

func (c *Command) remoteNoDelay(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(r.Flags & 1)
	}
	if c.NoControl {
		return -1
	}
	return b01(c.Test.NoDelay && c.Test.Protocol == protoTCP)
}

func (c *Command) remoteIntervalUsecs(*Figures) int { return c.RemoteIntervalUsecs }
func (c *Command) remoteIntervalBurst(*Figures) int { return c.RemoteIntervalBurst }

func (c *Command) remoteCPUFrequency(*Figures) int { return 0 }

// localPrio is netperf's LOCAL_SOCKET_PRIO: -1 unless -y asked for one,
// then the SO_PRIORITY this end's data socket had (netscript sets it on
// the far end only, through netserver's request).
func (c *Command) localPrio(f *Figures) int {
	if c.LocalPrio < 0 || f.it.d.Priority < 0 {
		return c.LocalPrio
	}
	return f.it.d.Priority
}

func (c *Command) remotePrio(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(r.SocketPrio)
	}
	return c.RemotePrio
}

// localTOS is the TOS this end's data socket had: read back from it when
// netperf sets one (a value above 0), else what -Y gave (-1: none).
func (c *Command) localTOS(f *Figures) int {
	if c.LocalTOS > 0 && f.it.d.TOS >= 0 {
		return f.it.d.TOS
	}
	return c.LocalTOS
}

func (c *Command) remoteTOS(f *Figures) int {
	if r := f.it.d.NetserverResponse; r != nil {
		return int(r.SocketTOS)
	}
	if c.NoControl {
		return -1
	}
	if c.RemoteTOS > 0 && c.embedded() {
		return c.LocalTOS // the embedded server set the same knob (see specKnobs)
	}
	return c.RemoteTOS
}

// localCong is the congestion control this end's data connection had
// at its end ("" for UDP and a connection per transaction, as netperf).
func (c *Command) localCong(f *Figures) string {
	if !c.connected() {
		return ""
	}
	return f.it.d.Congestion
}

func (c *Command) remoteCong(f *Figures) string {
	if r := f.it.d.NetserverResults; r != nil {
		return r.CongControl
	}
	if p := f.Last.Remote; p != nil && p.TCP != nil && c.connected() && p.TCP.Congestion != "mixed" {
		return p.TCP.Congestion
	}
	return ""
}

// localRetrans is netperf's LOCAL_TRANSPORT_RETRANS: tcpi_total_retrans of
// this end's connection at its end; -1 where netperf has none (UDP, a
// connection per transaction).
func (c *Command) localRetrans(f *Figures) int {
	if ti := f.it.d.TCPInfo; ti != nil && c.connected() {
		return int(ti.Total_retrans)
	}
	return -1
}

func (c *Command) remoteRetrans(f *Figures) int {
	if r := f.it.d.NetserverResults; r != nil {
		return int(r.TransportRetrans)
	}
	if c.NoControl {
		return -2
	}
	if p := f.Last.Remote; p != nil && p.TCP != nil && c.connected() {
		return int(p.TCP.Retransmits)
	}
	return -1
}

// transportMSS is TCP_MAXSEG of this end's data socket; -1 for UDP. For
// a connection per transaction it is the connections' MSS, read when
// TRANSPORT_MSS is selected (else netperf's -2, "not read").
func (c *Command) transportMSS(f *Figures) int {
	switch {
	case c.Test.Protocol != protoTCP:
		return -1
	case c.Test.Connection && f.Last.TCP != nil && f.Last.TCP.MSS > 0:
		return int(f.Last.TCP.MSS)
	case c.Test.Connection:
		return -2
	case f.it.d.MSS > 0:
		return f.it.d.MSS
	}
	return -1
}

// sourceAddr is netperf's local_data_address.
func (c *Command) sourceAddr() string {
	t := &c.Test
	switch {
	case t.DataLocal != "":
		return t.DataLocal
	case t.DataHost == "":
		return c.LocalHost
	case t.LocalFamily == afInet6 || t.LocalFamily == afUnspec && c.dataFamily() == afInet6:
		return "::0"
	}
	return "0.0.0.0"
}

func (c *Command) sourceFamily() int { return c.Test.LocalFamily }

// destAddr is netperf's remote_data_address: the test's -H, else the
// global one as given.
func (c *Command) destAddr() string {
	if c.Test.DataHost != "" {
		return c.Test.DataHost
	}
	return c.Host
}

// destFamily is the data connection's family: the test's, else the
// control connection's.
func (c *Command) destFamily(f *Figures) int {
	if c.Test.RemoteFamily != afUnspec {
		return c.Test.RemoteFamily
	}
	if a, err := netip.ParseAddr(f.Last.RemoteAddress); err == nil && a.Unmap().Is6() {
		return afInet6
	}
	if c.Family == afInet6 {
		return afInet6
	}
	return afInet
}

// protocolName is netperf's protocol_to_str.
func (c *Command) protocolName() string {
	switch c.Test.Protocol {
	case protoTCP:
		return "TCP"
	case protoUDP:
		return "UDP"
	}
	if c.Test.ProtocolName != "" {
		return c.Test.ProtocolName
	}
	return "Unknown Protocol"
}

// directionName is netperf's direction_to_str.
func (c *Command) directionName() string {
	d := c.Test.Direction & (dirXmit | dirRecv)
	switch {
	case d == dirRecv:
		return "Receive"
	case d == dirXmit:
		return "Send"
	case c.isCC():
		return "Connection"
	case c.Test.Connection:
		return "Connect|Send|Recv"
	}
	return "Send|Recv"
}

// unitsWord is netperf's format_units().
func (c *Command) unitsWord() string {
	switch c.Format {
	case 'B':
		return "Bytes"
	case 'K':
		return "KBytes"
	case 'M':
		return "MBytes"
	case 'G':
		return "GBytes"
	case 'b':
		return "10^0bits"
	case 'k':
		return "10^3bits"
	case 'm':
		return "10^6bits"
	case 'g':
		return "10^9bits"
	case 'x':
		return "Trans"
	case 'u':
		return "Usec"
	}
	return "KBytes"
}

// sdUnits is SD_UNITS.
func (c *Command) sdUnits() string {
	if c.Format == 'x' {
		return "usec/Tran"
	}
	return "usec/KB"
}
