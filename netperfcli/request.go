package netperfcli

import (
	"context"
	"os"
	"strconv"
	"strings"

	"netscript/engine/client"
	"netscript/engine/npwire"
	"netscript/engine/sock"
	"netscript/engine/spec"
)

// netperfRequest is what the command asks of a netserver beyond the
// test's spec: netperf's omni request as netperf fills it, the socket
// options netperf sets on its own end, the data connection's address
// (-- -H) and the passphrase (-Z). nil for a test that has no netserver
// (the embedded server, -N).
func (c *Command) netperfRequest(ctx context.Context, s *spec.Spec) (*client.NetperfRequest, error) {
	if !s.Netserver() {
		return nil, nil
	}
	np := &client.NetperfRequest{Passphrase: c.Passphrase, Amend: c.amendOmni}
	c.knobs(s, &np.Knobs)
	if c.Test.DataHost != "" {
		ap, err := sock.Resolve(ctx, c.Test.DataHost, 0, s.Family)
		if err != nil {
			return nil, &Error{Msg: "Netperf could not resolve " + c.Test.DataHost + " as a host name", Status: 255, Stdout: true}
		}
		np.DataAddr = ap.Addr()
	}
	return np, nil
}

// amendOmni fills a DO_OMNI with what netperf puts in it beyond the
// test's spec: the far end's sizes, buffers, alignments, offsets, rings,
// priority, TOS, congestion control, fill file, pacing and flags.
func (c *Command) amendOmni(r *npwire.OmniRequest) {
	t := &c.Test
	r.SendBufSize, r.RecvBufSize = int32(t.RSSReq), int32(t.RSRReq)
	r.SendSize, r.RecvSize = uint32(int32(t.RemoteSendSize)), uint32(int32(t.RemoteRecvSize))
	r.RequestSize, r.ResponseSize = int32(t.ReqSize), int32(t.RspSize)
	r.SendAlign, r.RecvAlign = uint32(int32(c.RemoteSendAlign)), uint32(int32(c.RemoteRecvAlign))
	r.SendOffset, r.RecvOffset = uint32(int32(c.RemoteSendOffset)), uint32(int32(c.RemoteRecvOffset))
	r.SendWidth, r.RecvWidth = uint32(c.requestSendWidth()), uint32(c.requestRecvWidth())
	r.SocketPrio, r.SocketTOS = int32(c.RemotePrio), int32(c.RemoteTOS)
	r.CongControl, r.FillFile = t.CongRemote, c.RemoteFill
	r.CPURate = float32(c.RemoteCPURate)
	r.IntervalBurst, r.IntervalUsecs = uint32(c.RemoteIntervalBurst), uint32(c.RemoteIntervalUsecs)
	avoid := uint32(0)
	if t.CopyAvoid {
		avoid = 1
	}
	r.SoRcvAvoid, r.SoSndAvoid = avoid, avoid
	r.Flags = c.omniFlags()
}

// omniFlags are netperf's set_omni_request_flags.
func (c *Command) omniFlags() uint32 {
	t := &c.Test
	var f uint32
	set := func(on bool, bit uint32) {
		if on {
			f |= bit
		}
	}
	set(t.NoDelay, npwire.OmniNoDelay)
	set(t.Connection, npwire.OmniConnectTest)
	set(c.RemoteCPU, npwire.OmniMeasureCPU)
	// Routing is allowed but for a UDP stream; the same bit asks
	// netserver for its congestion control (netperf's OMNI_WANT_REM_CONG).
	set(t.RoutingAllowed != 0 || c.selects("REMOTE_CONG_CONTROL"), npwire.OmniRoutingAllowed)
	set(c.selects("REMOTE_INTERFACE_NAME"), npwire.OmniWantIfname)
	set(c.selects("REMOTE_INTERFACE_SLOT"), npwire.OmniWantIfslot)
	set(c.selects("REMOTE_INTERFACE_VENDOR", "REMOTE_INTERFACE_DEVICE", "REMOTE_INTERFACE_SUBVENDOR", "REMOTE_INTERFACE_SUBDEVICE"), npwire.OmniWantIfids)
	set(c.selects("REMOTE_DRIVER_NAME", "REMOTE_DRIVER_VERSION", "REMOTE_DRIVER_FIRMWARE", "REMOTE_DRIVER_BUS"), npwire.OmniWantDrvinfo)
	set(t.FastOpen, npwire.OmniFastOpen)
	set(t.Pktinfo, npwire.OmniUsePktinfo)
	set(t.DeferAccept, npwire.OmniWantDeferAcc)
	set(t.RemoteConn, npwire.OmniUseConnected)
	set(t.MTUDiscover, npwire.OmniUseMTUDiscover)
	set(c.KeepAlive, npwire.OmniWantKeepalive)
	return f
}

// selects reports whether the output selection names one of names.
func (c *Command) selects(names ...string) bool {
	if c.Test.Legacy || !c.Test.Omni {
		return false
	}
	blocks, err := c.selection()
	if err != nil {
		return false
	}
	for _, b := range blocks {
		for _, e := range b {
			for _, n := range names {
				if e != nil && e.name == n {
					return true
				}
			}
		}
	}
	return false
}

// requestSendWidth is the send ring width netperf puts in its request:
// its own (one buffer for requests, a stream sender's ring), or -W.
func (c *Command) requestSendWidth() int {
	t := &c.Test
	switch {
	case c.SendWidth != 0 || t.Direction&dirXmit == 0:
		return c.SendWidth
	case t.ReqSize > 0:
		return 1
	}
	lss := c.defaultBuffer(t.LSSReq, "wmem")
	size := t.SendSize
	if size <= 0 {
		size = spec.DefaultSendSize(c.workloadOrNil(), lss)
	}
	return width(lss, size)
}

func (c *Command) requestRecvWidth() int {
	t := &c.Test
	switch {
	case c.RecvWidth != 0 || t.Direction&dirRecv == 0:
		return c.RecvWidth
	case t.RspSize > 0:
		return 1
	}
	lsr := c.defaultBuffer(t.LSRReq, "rmem")
	size := t.RecvSize
	if size <= 0 {
		size = lsr
	}
	return width(lsr, size)
}

func (c *Command) workloadOrNil() *spec.Workload {
	w, _ := c.workload()
	if w == nil {
		return spec.TCPStream
	}
	return w
}

// defaultBuffer is the buffer a socket of the test gets before it is
// created: twice the size asked for (Linux's doubling, at least its
// minimum), or the system's default (tcp_wmem's or tcp_rmem's middle
// value, or net.core's for UDP).
func (c *Command) defaultBuffer(req int, which string) int {
	if req >= 0 {
		return max(2*req, 4608)
	}
	path := "/proc/sys/net/ipv4/tcp_" + which
	if c.Test.Protocol == protoUDP {
		path = "/proc/sys/net/core/" + which + "_default"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 16384
	}
	f := strings.Fields(string(b))
	i := 0
	if len(f) == 3 {
		i = 1
	}
	if n, err := strconv.Atoi(f[i]); err == nil {
		return n
	}
	return 16384
}
