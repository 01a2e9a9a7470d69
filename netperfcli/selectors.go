package netperfcli

import (
	"fmt"
	"strings"
)

// selector is one of netperf 2.7.1's output selectors: its name, the
// four lines of its column header (-O; joined by spaces the CSV header),
// and its value as netperf formats it; ok false is netperf's missing
// value (a brand not given), which keyval output leaves out.
type selector struct {
	name  string
	head  [4]string
	value func(c *Command, f *Figures) (v string, ok bool)
}

func s(v string) (string, bool)                    { return v, true }
func d(n int) (string, bool)                       { return fmt.Sprint(n), true }
func u(n uint64) (string, bool)                    { return fmt.Sprint(n), true }
func f2(v float64) (string, bool)                  { return fmt.Sprintf("%.2f", cfloat(v)), true }
func f3(v float64) (string, bool)                  { return fmt.Sprintf("%.3f", cfloat(v)), true }
func hex4(n int) (string, bool)                    { return fmt.Sprintf("0x%.4x", uint32(n)), true }
func quoted(v string) (string, bool)               { return `"` + v + `"`, true }
func h(a, b, c, e string) [4]string                { return [4]string{a, b, c, e} }
func deprecated(*Command, *Figures) (string, bool) { return "Deprecated", true }

// selectors lists every selector in netperf's order (its enum, which
// -o '?' lists and "all" follows).
var selectors = []selector{
	{"OUTPUT_NONE", h(" ", "", "", ""), func(*Command, *Figures) (string, bool) { return s(" ") }},
	{"SOCKET_TYPE", h("Socket", "Type", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.Test.SocketType) }},
	{"PROTOCOL", h("Protocol", "", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.protocolName()) }},
	{"DIRECTION", h("Direction", "", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.directionName()) }},
	{"ELAPSED_TIME", h("Elapsed", "Time", "(sec)", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.Elapsed) }},
	{"THROUGHPUT", h("Throughput", "", "", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.Thruput) }},
	{"THROUGHPUT_UNITS", h("Throughput", "Units", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.unitsWord() + "/s") }},
	{"LSS_SIZE_REQ", h("Local", "Send Socket", "Size", "Requested"), func(c *Command, _ *Figures) (string, bool) { return d(c.Test.LSSReq) }},
	{"LSS_SIZE", h("Local", "Send Socket", "Size", "Initial"), func(c *Command, f *Figures) (string, bool) { return d(c.lss(f)) }},
	{"LSS_SIZE_END", h("Local", "Send Socket", "Size", "Final"), func(c *Command, f *Figures) (string, bool) { return d(c.lssEnd(f)) }},
	{"LSR_SIZE_REQ", h("Local", "Recv Socket", "Size", "Requested"), func(c *Command, _ *Figures) (string, bool) { return d(c.Test.LSRReq) }},
	{"LSR_SIZE", h("Local", "Recv Socket", "Size", "Initial"), func(c *Command, f *Figures) (string, bool) { return d(c.lsr(f)) }},
	{"LSR_SIZE_END", h("Local", "Recv Socket", "Size", "Final"), func(c *Command, f *Figures) (string, bool) { return d(c.lsrEnd(f)) }},
	{"RSS_SIZE_REQ", h("Remote", "Send Socket", "Size", "Requested"), func(c *Command, _ *Figures) (string, bool) { return d(c.Test.RSSReq) }},
	{"RSS_SIZE", h("Remote", "Send Socket", "Size", "Initial"), func(c *Command, f *Figures) (string, bool) { return d(c.rss(f)) }},
	{"RSS_SIZE_END", h("Remote", "Send Socket", "Size", "Final"), func(c *Command, f *Figures) (string, bool) { return d(c.rssEnd(f)) }},
	{"RSR_SIZE_REQ", h("Remote", "Recv Socket", "Size", "Requested"), func(c *Command, _ *Figures) (string, bool) { return d(c.Test.RSRReq) }},
	{"RSR_SIZE", h("Remote", "Recv Socket", "Size", "Initial"), func(c *Command, f *Figures) (string, bool) { return d(c.rsr(f)) }},
	{"RSR_SIZE_END", h("Remote", "Recv Socket", "Size", "Final"), func(c *Command, f *Figures) (string, bool) { return d(c.rsrEnd(f)) }},
	{"LOCAL_SEND_SIZE", h("Local", "Send", "Size", ""), func(c *Command, f *Figures) (string, bool) { return d(c.localSendSize(f)) }},
	{"LOCAL_RECV_SIZE", h("Local", "Recv", "Size", ""), func(c *Command, f *Figures) (string, bool) { return d(c.localRecvSize(f)) }},
	{"REMOTE_SEND_SIZE", h("Remote", "Send", "Size", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteSendSize(f)) }},
	{"REMOTE_RECV_SIZE", h("Remote", "Recv", "Size", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteRecvSize(f)) }},
	{"REQUEST_SIZE", h("Request", "Size", "Bytes", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.Test.ReqSize) }},
	{"RESPONSE_SIZE", h("Response", "Size", "Bytes", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.Test.RspSize) }},
	{"LOCAL_CPU_UTIL", h("Local", "CPU", "Util", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.LocalCPU) }},
	{"LOCAL_CPU_PERCENT_USER", h("Local", "CPU", "User", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Local.User) }},
	{"LOCAL_CPU_PERCENT_SYSTEM", h("Local", "CPU", "System", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Local.System) }},
	{"LOCAL_CPU_PERCENT_IOWAIT", h("Local", "CPU", "I/O", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Local.IOWait) }},
	{"LOCAL_CPU_PERCENT_IRQ", h("Local", "CPU", "IRQ", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Local.IRQ) }},
	{"LOCAL_CPU_PERCENT_SWINTR", h("Local", "CPU", "swintr", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Local.SWIntr) }},
	{"LOCAL_CPU_METHOD", h("Local", "CPU", "Util", "Method"), func(_ *Command, f *Figures) (string, bool) { return s(string(f.Local.Method)) }},
	{"LOCAL_SD", h("Local", "Service", "Demand", ""), func(_ *Command, f *Figures) (string, bool) { return f3(f.LocalSD) }},
	{"REMOTE_CPU_UTIL", h("Remote", "CPU", "Util", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.RemoteCPU) }},
	{"REMOTE_CPU_PERCENT_USER", h("Remote", "CPU", "User", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Remote.User) }},
	{"REMOTE_CPU_PERCENT_SYSTEM", h("Remote", "CPU", "System", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Remote.System) }},
	{"REMOTE_CPU_PERCENT_IOWAIT", h("Remote", "CPU", "I/O", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Remote.IOWait) }},
	{"REMOTE_CPU_PERCENT_IRQ", h("Remote", "CPU", "IRQ", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Remote.IRQ) }},
	{"REMOTE_CPU_PERCENT_SWINTR", h("Remote", "CPU", "swintr", "%"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Remote.SWIntr) }},
	{"REMOTE_CPU_METHOD", h("Remote", "CPU", "Util", "Method"), func(_ *Command, f *Figures) (string, bool) { return s(string(f.Remote.Method)) }},
	{"REMOTE_SD", h("Remote", "Service", "Demand", ""), func(_ *Command, f *Figures) (string, bool) { return f3(f.RemoteSD) }},
	{"SD_UNITS", h("Service", "Demand", "Units", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.sdUnits()) }},
	{"CONFIDENCE_LEVEL", h("Confidence", "Level", "Percent", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.Level) }},
	{"CONFIDENCE_INTERVAL", h("Confidence", "Width", "Target", ""), func(_ *Command, f *Figures) (string, bool) {
		return fmt.Sprintf("%f", f.IntervalPct), true
	}},
	{"CONFIDENCE_ITERATION", h("Confidence", "Iterations", "Run", ""), func(_ *Command, f *Figures) (string, bool) { return d(f.Iterations) }},
	{"THROUGHPUT_CONFID", h("Throughput", "Confidence", "Width (%)", ""), func(_ *Command, f *Figures) (string, bool) { return f3(f.ResultConfid) }},
	{"LOCAL_CPU_CONFID", h("Local", "CPU", "Confidence", "Width (%)"), func(_ *Command, f *Figures) (string, bool) { return f3(f.LocalConfid) }},
	{"REMOTE_CPU_CONFID", h("Remote", "CPU", "Confidence", "Width (%)"), func(_ *Command, f *Figures) (string, bool) { return f3(f.RemoteConfid) }},
	{"TRANSACTION_RATE", h("Transaction", "Rate", "Tran/s", ""), func(_ *Command, f *Figures) (string, bool) { return f3(f.TransRate) }},
	{"RT_LATENCY", h("Round", "Trip", "Latency", "usec/tran"), func(_ *Command, f *Figures) (string, bool) { return f3(f.RTTLatency) }},
	{"BURST_SIZE", h("Initial", "Burst", "Requests", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.Test.Burst) }},
	{"LOCAL_TRANSPORT_RETRANS", h("Local", "Transport", "Retransmissions", ""), func(c *Command, f *Figures) (string, bool) { return d(c.localRetrans(f)) }},
	{"REMOTE_TRANSPORT_RETRANS", h("Remote", "Transport", "Retransmissions", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteRetrans(f)) }},
	{"TRANSPORT_MSS", h("Transport", "MSS", "bytes", ""), func(c *Command, f *Figures) (string, bool) { return d(c.transportMSS(f)) }},
	{"LOCAL_SEND_THROUGHPUT", h("Local", "Send", "Throughput", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.LocalSendThru) }},
	{"LOCAL_RECV_THROUGHPUT", h("Local", "Recv", "Throughput", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.LocalRecvThru) }},
	{"REMOTE_SEND_THROUGHPUT", h("Remote", "Send", "Throughput", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.RemoteSendThru) }},
	{"REMOTE_RECV_THROUGHPUT", h("Remote", "Recv", "Throughput", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.RemoteRecvThru) }},
	{"LOCAL_CPU_BIND", h("Local", "CPU", "Bind", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.LocalAffinity) }},
	{"LOCAL_CPU_COUNT", h("Local", "CPU", "Count", ""), func(_ *Command, f *Figures) (string, bool) { return d(f.Local.NumCPUs) }},
	{"LOCAL_CPU_PEAK_UTIL", h("Local", "Peak", "Per CPU", "Util %"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Local.PeakUtil) }},
	{"LOCAL_CPU_PEAK_ID", h("Local", "Peak", "Per CPU", "ID"), func(_ *Command, f *Figures) (string, bool) { return d(f.Local.PeakID) }},
	{"LOCAL_CPU_MODEL", h("Local", "CPU", "Model", ""), deprecated},
	{"LOCAL_CPU_FREQUENCY", h("Local", "CPU", "Frequency", "MHz"), func(*Command, *Figures) (string, bool) { return d(0) }},
	{"REMOTE_CPU_BIND", h("Remote", "CPU", "Bind", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.RemoteAffinity) }},
	{"REMOTE_CPU_COUNT", h("Remote", "CPU", "Count", ""), func(_ *Command, f *Figures) (string, bool) { return d(f.Remote.NumCPUs) }},
	{"REMOTE_CPU_PEAK_UTIL", h("Remote", "Peak", "Per CPU", "Util %"), func(_ *Command, f *Figures) (string, bool) { return f2(f.Remote.PeakUtil) }},
	{"REMOTE_CPU_PEAK_ID", h("Remote", "Peak", "Per CPU", "ID"), func(_ *Command, f *Figures) (string, bool) { return d(f.Remote.PeakID) }},
	{"REMOTE_CPU_MODEL", h("Remote", "CPU", "Model", ""), deprecated},
	{"REMOTE_CPU_FREQUENCY", h("Remote", "CPU", "Frequency", "MHz"), func(c *Command, f *Figures) (string, bool) { return d(c.remoteCPUFrequency(f)) }},
	{"SOURCE_PORT", h("Source", "Port", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.Test.LocalDataPort) }},
	{"SOURCE_ADDR", h("Source", "Address", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.sourceAddr()) }},
	{"SOURCE_FAMILY", h("Source", "Family", "", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.sourceFamily()) }},
	{"DEST_PORT", h("Destination", "Port", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.Test.RemoteDataPort) }},
	{"DEST_ADDR", h("Destination", "Address", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.destAddr()) }},
	{"DEST_FAMILY", h("Destination", "Family", "", ""), func(c *Command, f *Figures) (string, bool) { return d(c.destFamily(f)) }},
	{"LOCAL_SEND_CALLS", h("Local", "Send", "Calls", ""), func(c *Command, f *Figures) (string, bool) { return u(c.localSendCalls(f)) }},
	{"LOCAL_RECV_CALLS", h("Local", "Recv", "Calls", ""), func(c *Command, f *Figures) (string, bool) { return u(c.localRecvCalls(f)) }},
	{"LOCAL_BYTES_PER_RECV", h("Local", "Bytes", "Per", "Recv"), func(c *Command, f *Figures) (string, bool) {
		return f2(per(f.Last.BytesReceived, c.localRecvCalls(f)))
	}},
	{"LOCAL_BYTES_PER_SEND", h("Local", "Bytes", "Per", "Send"), func(c *Command, f *Figures) (string, bool) {
		return f2(per(f.Last.BytesSent, c.localSendCalls(f)))
	}},
	{"LOCAL_BYTES_SENT", h("Local", "Bytes", "Sent", ""), func(_ *Command, f *Figures) (string, bool) { return u(f.Last.BytesSent) }},
	{"LOCAL_BYTES_RECVD", h("Local", "Bytes", "Received", ""), func(_ *Command, f *Figures) (string, bool) { return u(f.Last.BytesReceived) }},
	{"LOCAL_BYTES_XFERD", h("Local", "Bytes", "Xferred", ""), func(_ *Command, f *Figures) (string, bool) {
		return fmt.Sprintf("%.0f", float64(f.Last.BytesSent)+float64(f.Last.BytesReceived)), true
	}},
	{"LOCAL_SEND_OFFSET", h("Local", "Send", "Offset", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.SendOffset) }},
	{"LOCAL_RECV_OFFSET", h("Local", "Recv", "Offset", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.RecvOffset) }},
	{"LOCAL_SEND_ALIGN", h("Local", "Send", "Alignment", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.SendAlign) }},
	{"LOCAL_RECV_ALIGN", h("Local", "Recv", "Alignment", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.RecvAlign) }},
	{"LOCAL_SEND_WIDTH", h("Local", "Send", "Width", ""), func(c *Command, f *Figures) (string, bool) { return d(c.localSendWidth(f)) }},
	{"LOCAL_RECV_WIDTH", h("Local", "Recv", "Width", ""), func(c *Command, f *Figures) (string, bool) { return d(c.localRecvWidth(f)) }},
	{"LOCAL_SEND_DIRTY_COUNT", h("Local", "Send", "Dirty", "Count"), func(*Command, *Figures) (string, bool) { return d(-1) }},
	{"LOCAL_RECV_DIRTY_COUNT", h("Local", "Recv", "Dirty", "Count"), func(*Command, *Figures) (string, bool) { return d(-1) }},
	{"LOCAL_RECV_CLEAN_COUNT", h("Local", "Recv", "Clean", "Count"), func(*Command, *Figures) (string, bool) { return d(-1) }},
	{"LOCAL_NODELAY", h("Local", "NODELAY", "", ""), func(c *Command, _ *Figures) (string, bool) { return d(b01(c.Test.NoDelay)) }},
	{"LOCAL_CORK", h("Local", "Cork", "", ""), func(c *Command, _ *Figures) (string, bool) { return d(b01(c.Test.Cork)) }},
	{"REMOTE_SEND_CALLS", h("Remote", "Send", "Calls", ""), func(c *Command, f *Figures) (string, bool) { return u(c.remoteSendCalls(f)) }},
	{"REMOTE_RECV_CALLS", h("Remote", "Recv", "Calls", ""), func(c *Command, f *Figures) (string, bool) { return u(c.remoteRecvCalls(f)) }},
	{"REMOTE_BYTES_PER_RECV", h("Remote", "Bytes", "Per", "Recv"), func(c *Command, f *Figures) (string, bool) {
		_, rr := c.remoteBytes(f.it)
		return f2(per(rr, c.remoteRecvCalls(f)))
	}},
	{"REMOTE_BYTES_PER_SEND", h("Remote", "Bytes", "Per", "Send"), func(c *Command, f *Figures) (string, bool) {
		rs, _ := c.remoteBytes(f.it)
		return f2(per(rs, c.remoteSendCalls(f)))
	}},
	{"REMOTE_BYTES_SENT", h("Remote", "Bytes", "Sent", ""), func(c *Command, f *Figures) (string, bool) {
		rs, _ := c.remoteBytes(f.it)
		return u(rs)
	}},
	{"REMOTE_BYTES_RECVD", h("Remote", "Bytes", "Received", ""), func(c *Command, f *Figures) (string, bool) {
		_, rr := c.remoteBytes(f.it)
		return u(rr)
	}},
	{"REMOTE_BYTES_XFERD", h("Remote", "Bytes", "Xferred", ""), func(c *Command, f *Figures) (string, bool) {
		return fmt.Sprintf("%.0f", c.remoteXferd(f)), true
	}},
	{"REMOTE_SEND_OFFSET", h("Remote", "Send", "Offset", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.RemoteSendOffset) }},
	{"REMOTE_RECV_OFFSET", h("Remote", "Recv", "Offset", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.RemoteRecvOffset) }},
	{"REMOTE_SEND_ALIGN", h("Remote", "Send", "Alignment", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.RemoteSendAlign) }},
	{"REMOTE_RECV_ALIGN", h("Remote", "Recv", "Alignment", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.RemoteRecvAlign) }},
	{"REMOTE_SEND_WIDTH", h("Remote", "Send", "Width", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteSendWidth(f)) }},
	{"REMOTE_RECV_WIDTH", h("Remote", "Recv", "Width", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteRecvWidth(f)) }},
	{"REMOTE_SEND_DIRTY_COUNT", h("Remote", "Send", "Dirty", "Count"), func(*Command, *Figures) (string, bool) { return d(-1) }},
	{"REMOTE_RECV_DIRTY_COUNT", h("Remote", "Recv", "Dirty", "Count"), func(*Command, *Figures) (string, bool) { return d(-1) }},
	{"REMOTE_RECV_CLEAN_COUNT", h("Remote", "Recv", "Clean", "Count"), func(*Command, *Figures) (string, bool) { return d(-1) }},
	{"REMOTE_NODELAY", h("Remote", "NODELAY", "", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteNoDelay(f)) }},
	{"REMOTE_CORK", h("Remote", "Cork", "", ""), func(c *Command, _ *Figures) (string, bool) { return d(b01(c.Test.Cork)) }},
	{"LOCAL_SYSNAME", h("Local", "Sysname", "", ""), deprecated},
	{"LOCAL_SYSTEM_MODEL", h("Local", "System", "Model", ""), deprecated},
	{"LOCAL_RELEASE", h("Local", "Release", "", ""), deprecated},
	{"LOCAL_VERSION", h("Local", "Version", "", ""), deprecated},
	{"LOCAL_MACHINE", h("Local", "Machine", "", ""), deprecated},
	{"REMOTE_SYSNAME", h("Remote", "Sysname", "", ""), deprecated},
	{"REMOTE_SYSTEM_MODEL", h("Remote", "System", "Model", ""), deprecated},
	{"REMOTE_RELEASE", h("Remote", "Release", "", ""), deprecated},
	{"REMOTE_VERSION", h("Remote", "Version", "", ""), deprecated},
	{"REMOTE_MACHINE", h("Remote", "Machine", "", ""), deprecated},
	{"LOCAL_INTERFACE_NAME", h("Local", "Interface", "Name", ""), deprecated},
	{"LOCAL_INTERFACE_VENDOR", h("Local", "Interface", "Vendor", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"LOCAL_INTERFACE_DEVICE", h("Local", "Interface", "Device", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"LOCAL_INTERFACE_SUBVENDOR", h("Local", "Interface", "Subvendor", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"LOCAL_INTERFACE_SUBDEVICE", h("Local", "Interface", "Subdevice", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"LOCAL_DRIVER_NAME", h("Local", "Driver", "Name", ""), deprecated},
	{"LOCAL_DRIVER_VERSION", h("Local", "Driver", "Version", ""), deprecated},
	{"LOCAL_DRIVER_FIRMWARE", h("Local", "Driver", "Firmware", ""), deprecated},
	{"LOCAL_DRIVER_BUS", h("Local", "Driver", "Bus", ""), deprecated},
	{"LOCAL_INTERFACE_SLOT", h("Local", "Interface", "Slot", ""), deprecated},
	{"REMOTE_INTERFACE_NAME", h("Remote", "Interface", "Name", ""), deprecated},
	{"REMOTE_INTERFACE_VENDOR", h("Remote", "Interface", "Vendor", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"REMOTE_INTERFACE_DEVICE", h("Remote", "Interface", "Device", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"REMOTE_INTERFACE_SUBVENDOR", h("Remote", "Interface", "Subvendor", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"REMOTE_INTERFACE_SUBDEVICE", h("Remote", "Interface", "Subdevice", ""), func(*Command, *Figures) (string, bool) { return hex4(-2) }},
	{"REMOTE_DRIVER_NAME", h("Remote", "Driver", "Name", ""), deprecated},
	{"REMOTE_DRIVER_VERSION", h("Remote", "Driver", "Version", ""), deprecated},
	{"REMOTE_DRIVER_FIRMWARE", h("Remote", "Driver", "Firmware", ""), deprecated},
	{"REMOTE_DRIVER_BUS", h("Remote", "Driver", "Bus", ""), deprecated},
	{"REMOTE_INTERFACE_SLOT", h("Remote", "Interface", "Slot", ""), deprecated},
	{"LOCAL_INTERVAL_USECS", h("Local", "Interval", "Usecs", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.IntervalUsecs) }},
	{"LOCAL_INTERVAL_BURST", h("Local", "Interval", "Burst", ""), func(c *Command, _ *Figures) (string, bool) { return d(c.IntervalBurst) }},
	{"REMOTE_INTERVAL_USECS", h("Remote", "Interval", "Usecs", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteIntervalUsecs(f)) }},
	{"REMOTE_INTERVAL_BURST", h("Remote", "Interval", "Burst", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remoteIntervalBurst(f)) }},
	{"LOCAL_SECURITY_TYPE_ID", h("Local", "OS", "Security", "Type ID"), func(*Command, *Figures) (string, bool) { return d(0) }},
	{"LOCAL_SECURITY_TYPE", h("Local", "OS", "Security", "Type"), deprecated},
	{"LOCAL_SECURITY_ENABLED_NUM", h("Local", "OS", "Security", "Enabled Num"), func(*Command, *Figures) (string, bool) { return d(0) }},
	{"LOCAL_SECURITY_ENABLED", h("Local", "OS", "Security", "Enabled"), deprecated},
	{"LOCAL_SECURITY_SPECIFIC", h("Local", "OS", "Security", "Specific"), deprecated},
	{"REMOTE_SECURITY_TYPE_ID", h("Remote", "OS", "Security", "Type"), func(*Command, *Figures) (string, bool) { return d(0) }},
	{"REMOTE_SECURITY_TYPE", h("Remote", "OS", "Security", "Type"), deprecated},
	{"REMOTE_SECURITY_ENABLED_NUM", h("Remote", "OS", "Security", "Enabled"), func(*Command, *Figures) (string, bool) { return d(0) }},
	{"REMOTE_SECURITY_ENABLED", h("Remote", "OS", "Security", "Enabled"), deprecated},
	{"REMOTE_SECURITY_SPECIFIC", h("Remote", "OS", "Security", "Specific"), deprecated},
	{"RESULT_BRAND", h("Result", "Tag", "", ""), func(c *Command, _ *Figures) (string, bool) {
		if c.Brand == nil {
			return "", false
		}
		return quoted(*c.Brand)
	}},
	{"UUID", h("Test", "UUID", "", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.uuid) }},
	{"MIN_LATENCY", h("Minimum", "Latency", "Microseconds", ""), func(_ *Command, f *Figures) (string, bool) { return d(f.Latency.Min) }},
	{"MAX_LATENCY", h("Maximum", "Latency", "Microseconds", ""), func(_ *Command, f *Figures) (string, bool) { return d(f.Latency.Max) }},
	{"P50_LATENCY", h("50th", "Percentile", "Latency", "Microseconds"), func(_ *Command, f *Figures) (string, bool) { return d(f.Latency.P50) }},
	{"P90_LATENCY", h("90th", "Percentile", "Latency", "Microseconds"), func(_ *Command, f *Figures) (string, bool) { return d(f.Latency.P90) }},
	{"P99_LATENCY", h("99th", "Percentile", "Latency", "Microseconds"), func(_ *Command, f *Figures) (string, bool) { return d(f.Latency.P99) }},
	{"MEAN_LATENCY", h("Mean", "Latency", "Microseconds", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.Latency.Mean) }},
	{"STDDEV_LATENCY", h("Stddev", "Latency", "Microseconds", ""), func(_ *Command, f *Figures) (string, bool) { return f2(f.Latency.Stddev) }},
	{"LOCAL_SOCKET_PRIO", h("Local", "Socket", "Priority", ""), func(c *Command, f *Figures) (string, bool) { return d(c.localPrio(f)) }},
	{"REMOTE_SOCKET_PRIO", h("Remote", "Socket", "Priority", ""), func(c *Command, f *Figures) (string, bool) { return d(c.remotePrio(f)) }},
	{"LOCAL_SOCKET_TOS", h("Local", "Socket", "TOS", ""), func(c *Command, f *Figures) (string, bool) { return tos(c.localTOS(f)) }},
	{"REMOTE_SOCKET_TOS", h("Remote", "Socket", "TOS", ""), func(c *Command, f *Figures) (string, bool) { return tos(c.remoteTOS(f)) }},
	{"LOCAL_CONG_CONTROL", h("Local", "Congestion", "Control", "Algorithm"), func(c *Command, f *Figures) (string, bool) { return s(c.localCong(f)) }},
	{"REMOTE_CONG_CONTROL", h("Remote", "Congestion", "Control", "Algorithm"), func(c *Command, f *Figures) (string, bool) { return s(c.remoteCong(f)) }},
	{"LOCAL_FILL_FILE", h("Local", "Fill", "File", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.LocalFill) }},
	{"REMOTE_FILL_FILE", h("Remote", "Fill", "File", ""), func(c *Command, _ *Figures) (string, bool) { return s(c.RemoteFill) }},
	{"COMMAND_LINE", h("Command", "Line", "", ""), func(c *Command, _ *Figures) (string, bool) { return quoted(c.Line) }},
	{"OUTPUT_END", h("This", "Is", "The", "End"), func(*Command, *Figures) (string, bool) { return "", false }},
}

func tos(v int) (string, bool) { return fmt.Sprintf("0x%.2x", uint32(v)), true }

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// per is n over calls, 0 without calls (netperf's bytes per call).
func per(n, calls uint64) float64 {
	if calls == 0 {
		return 0
	}
	return float64(n) / float64(calls)
}

// lookupSelector finds a selector by its name in any case (netperf's
// match_string_to_output_mnenomic).
func lookupSelector(name string) (*selector, bool) {
	for i := range selectors {
		if strings.EqualFold(selectors[i].name, name) {
			return &selectors[i], true
		}
	}
	return nil, false
}
