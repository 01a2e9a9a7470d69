package netperfcli

import (
	"fmt"
	"io"
	"strings"

	"netscript/engine/sock"
)

// selector is one of netperf's output selectors: its name, the lines of
// its column header (-O; joined with spaces they are the CSV header) and
// how its value is printed.
type selector struct {
	name  string
	head  []string
	value func(c *Command, f *Figures) string
}

func intv(n int) string   { return fmt.Sprint(n) }
func u64(n uint64) string { return fmt.Sprint(n) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }
func f3(v float64) string { return fmt.Sprintf("%.3f", v) }
func lat(get func(f *Figures) float64) func(c *Command, f *Figures) string {
	return func(c *Command, f *Figures) string {
		if f.Latency == nil || f.Latency.Count == 0 {
			return "-1"
		}
		return intv(int(get(f)))
	}
}

// rrSize is a request or response size: -1 for the stream tests, as
// netperf prints them.
func rrSize(c *Command, n int) string {
	if !c.Test.RR() {
		return "-1"
	}
	return intv(n)
}

// sendSize and recvSize are the per-call sizes of stream tests, on the
// end that uses them; 0 (local) or -1 (remote) where netperf prints so.
func (c *Command) streamSize(f *Figures, local, send bool) string {
	w := c.Test
	none := "0"
	if !local {
		none = "-1"
	}
	if w.RR() {
		if local {
			return "0"
		}
		if send {
			return intv(f.Last.Config.Response)
		}
		return intv(f.Last.Config.Request)
	}
	clientSends := w.ClientSends()
	if send && local == clientSends {
		return intv(f.Last.Config.SendSize)
	}
	if !send && local != clientSends {
		return intv(f.Last.Config.RecvSize)
	}
	return none
}

func req(n int) string {
	if n == 0 {
		return "-1"
	}
	return intv(n)
}

func (c *Command) protocol() string {
	if c.Test.Datagram {
		return "UDP"
	}
	return "TCP"
}

func (c *Command) direction() string {
	w := c.Test
	switch {
	case w.RR():
		return "Send|Recv"
	case w.ServerSends:
		return "Receive"
	}
	return "Send"
}

func (c *Command) destAddr() string {
	if c.Host != "" {
		return c.Host
	}
	if c.Family == sock.Inet6 {
		return "::1"
	}
	return "127.0.0.1"
}

func cpuMethod(v float64) string {
	if v < 0 {
		return "U"
	}
	return "S"
}

func optNum(p *int) string {
	if p == nil {
		return "-1"
	}
	return intv(*p)
}

func bool01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// selectors lists the selectors netscript fills, in netperf's order of
// its -o '?' list.
var selectors = []selector{
	{"OUTPUT_NONE", nil, func(c *Command, f *Figures) string { return " " }},
	{"SOCKET_TYPE", []string{"Socket", "Type"}, func(c *Command, f *Figures) string {
		if c.Test.Datagram {
			return "Datagram"
		}
		return "Stream"
	}},
	{"PROTOCOL", []string{"Protocol"}, func(c *Command, f *Figures) string { return c.protocol() }},
	{"DIRECTION", []string{"Direction"}, func(c *Command, f *Figures) string { return c.direction() }},
	{"ELAPSED_TIME", []string{"Elapsed", "Time", "(sec)"}, func(c *Command, f *Figures) string { return f2(f.Elapsed) }},
	{"THROUGHPUT", []string{"Throughput"}, func(c *Command, f *Figures) string { return f2(f.Throughput) }},
	{"THROUGHPUT_UNITS", []string{"Throughput", "Units"}, func(c *Command, f *Figures) string { return f.Units }},
	{"LSS_SIZE_REQ", []string{"Local", "Send Socket", "Size", "Requested"}, func(c *Command, f *Figures) string { return req(c.SendBuffer) }},
	{"LSS_SIZE", []string{"Local", "Send Socket", "Size", "Initial"}, func(c *Command, f *Figures) string { return intv(f.Last.Config.LocalSendBuffer) }},
	{"LSS_SIZE_END", []string{"Local", "Send Socket", "Size", "Final"}, func(c *Command, f *Figures) string { return lssEnd(f) }},
	{"LSR_SIZE_REQ", []string{"Local", "Recv Socket", "Size", "Requested"}, func(c *Command, f *Figures) string { return req(c.RecvBuffer) }},
	{"LSR_SIZE", []string{"Local", "Recv Socket", "Size", "Initial"}, func(c *Command, f *Figures) string { return intv(f.Last.Config.LocalRecvBuffer) }},
	{"LSR_SIZE_END", []string{"Local", "Recv Socket", "Size", "Final"}, func(c *Command, f *Figures) string { return lsrEnd(f) }},
	{"RSS_SIZE_REQ", []string{"Remote", "Send Socket", "Size", "Requested"}, func(c *Command, f *Figures) string { return req(c.RemoteSendBuffer) }},
	{"RSS_SIZE", []string{"Remote", "Send Socket", "Size", "Initial"}, func(c *Command, f *Figures) string { return intv(f.Last.Config.RemoteSendBuffer) }},
	{"RSS_SIZE_END", []string{"Remote", "Send Socket", "Size", "Final"}, func(c *Command, f *Figures) string { return rssEnd(f) }},
	{"RSR_SIZE_REQ", []string{"Remote", "Recv Socket", "Size", "Requested"}, func(c *Command, f *Figures) string { return req(c.RemoteRecvBuffer) }},
	{"RSR_SIZE", []string{"Remote", "Recv Socket", "Size", "Initial"}, func(c *Command, f *Figures) string { return intv(f.Last.Config.RemoteRecvBuffer) }},
	{"RSR_SIZE_END", []string{"Remote", "Recv Socket", "Size", "Final"}, func(c *Command, f *Figures) string { return rsrEnd(f) }},
	{"LOCAL_SEND_SIZE", []string{"Local", "Send", "Size"}, func(c *Command, f *Figures) string { return c.streamSize(f, true, true) }},
	{"LOCAL_RECV_SIZE", []string{"Local", "Recv", "Size"}, func(c *Command, f *Figures) string { return c.streamSize(f, true, false) }},
	{"REMOTE_SEND_SIZE", []string{"Remote", "Send", "Size"}, func(c *Command, f *Figures) string { return c.streamSize(f, false, true) }},
	{"REMOTE_RECV_SIZE", []string{"Remote", "Recv", "Size"}, func(c *Command, f *Figures) string { return c.streamSize(f, false, false) }},
	{"REQUEST_SIZE", []string{"Request", "Size", "Bytes"}, func(c *Command, f *Figures) string { return rrSize(c, f.Last.Config.Request) }},
	{"RESPONSE_SIZE", []string{"Response", "Size", "Bytes"}, func(c *Command, f *Figures) string { return rrSize(c, f.Last.Config.Response) }},
	{"LOCAL_CPU_UTIL", []string{"Local", "CPU", "Util", "%"}, func(c *Command, f *Figures) string { return f2(f.LocalCPU) }},
	{"LOCAL_CPU_METHOD", []string{"Local", "CPU", "Util", "Method"}, func(c *Command, f *Figures) string { return cpuMethod(f.LocalCPU) }},
	{"LOCAL_SD", []string{"Local", "Service", "Demand"}, func(c *Command, f *Figures) string { return f3(f.LocalSD) }},
	{"REMOTE_CPU_UTIL", []string{"Remote", "CPU", "Util", "%"}, func(c *Command, f *Figures) string { return f2(f.RemoteCPU) }},
	{"REMOTE_CPU_METHOD", []string{"Remote", "CPU", "Util", "Method"}, func(c *Command, f *Figures) string { return cpuMethod(f.RemoteCPU) }},
	{"REMOTE_SD", []string{"Remote", "Service", "Demand"}, func(c *Command, f *Figures) string { return f3(f.RemoteSD) }},
	{"SD_UNITS", []string{"Service", "Demand", "Units"}, func(c *Command, f *Figures) string { return c.sdUnits() }},
	{"CONFIDENCE_LEVEL", []string{"Confidence", "Level", "Percent"}, func(c *Command, f *Figures) string { return intv(c.confLevel()) }},
	{"CONFIDENCE_INTERVAL", []string{"Confidence", "Width", "Target"}, func(c *Command, f *Figures) string { return fmt.Sprintf("%f", c.confWidth()) }},
	{"CONFIDENCE_ITERATION", []string{"Confidence", "Iterations", "Run"}, func(c *Command, f *Figures) string { return intv(f.Iterations) }},
	{"THROUGHPUT_CONFID", []string{"Throughput", "Confidence", "Width (%)"}, func(c *Command, f *Figures) string { return f3(f.ThroughputConfid) }},
	{"LOCAL_CPU_CONFID", []string{"Local", "CPU", "Confidence", "Width (%)"}, func(c *Command, f *Figures) string { return f3(f.LocalConfid) }},
	{"REMOTE_CPU_CONFID", []string{"Remote", "CPU", "Confidence", "Width (%)"}, func(c *Command, f *Figures) string { return f3(f.RemoteConfid) }},
	{"TRANSACTION_RATE", []string{"Transaction", "Rate", "Tran/s"}, func(c *Command, f *Figures) string {
		if !c.Test.RR() {
			return "1.000"
		}
		return f3(f.TransRate)
	}},
	{"RT_LATENCY", []string{"Round", "Trip", "Latency", "usec/tran"}, func(c *Command, f *Figures) string {
		if !c.Test.RR() || f.TransRate <= 0 {
			return "-1.000"
		}
		b := 1.0
		if firstBurst(c.Test) {
			b += float64(c.Burst)
		}
		return f3(1e6 / f.TransRate * b)
	}},
	{"BURST_SIZE", []string{"Initial", "Burst", "Requests"}, func(c *Command, f *Figures) string { return intv(c.Burst) }},
	// Not measured by netscript: netperf's "not tried" value.
	{"LOCAL_TRANSPORT_RETRANS", []string{"Local", "Transport", "Retransmissions"}, func(c *Command, f *Figures) string { return "-2" }},
	{"REMOTE_TRANSPORT_RETRANS", []string{"Remote", "Transport", "Retransmissions"}, func(c *Command, f *Figures) string { return "-2" }},
	{"TRANSPORT_MSS", []string{"Transport", "MSS", "bytes"}, func(c *Command, f *Figures) string { return "-2" }},
	{"LOCAL_SEND_THROUGHPUT", []string{"Local", "Send", "Throughput"}, func(c *Command, f *Figures) string { return f2(c.rate(f, f.Last.BytesSent)) }},
	{"LOCAL_RECV_THROUGHPUT", []string{"Local", "Recv", "Throughput"}, func(c *Command, f *Figures) string { return f2(c.rate(f, f.Last.BytesReceived)) }},
	{"REMOTE_SEND_THROUGHPUT", []string{"Remote", "Send", "Throughput"}, func(c *Command, f *Figures) string { return f2(c.rate(f, remote(f).BytesSent)) }},
	{"REMOTE_RECV_THROUGHPUT", []string{"Remote", "Recv", "Throughput"}, func(c *Command, f *Figures) string { return f2(c.rate(f, remote(f).BytesReceived)) }},
	{"LOCAL_CPU_BIND", []string{"Local", "CPU", "Bind"}, func(c *Command, f *Figures) string { return optNum(c.CPU) }},
	{"LOCAL_CPU_COUNT", []string{"Local", "CPU", "Count"}, func(c *Command, f *Figures) string { return intv(f.LocalCPUCount) }},
	{"REMOTE_CPU_BIND", []string{"Remote", "CPU", "Bind"}, func(c *Command, f *Figures) string { return optNum(c.RemoteCPUBind) }},
	{"REMOTE_CPU_COUNT", []string{"Remote", "CPU", "Count"}, func(c *Command, f *Figures) string { return intv(f.RemoteCPUCount) }},
	{"SOURCE_PORT", []string{"Source", "Port"}, func(c *Command, f *Figures) string { return intv(c.LocalPort) }},
	{"SOURCE_ADDR", []string{"Source", "Address"}, func(c *Command, f *Figures) string { return c.sourceAddr() }},
	{"SOURCE_FAMILY", []string{"Source", "Family"}, func(c *Command, f *Figures) string { return c.familyCode() }},
	{"DEST_PORT", []string{"Destination", "Port"}, func(c *Command, f *Figures) string { return intv(c.DataPort) }},
	{"DEST_ADDR", []string{"Destination", "Address"}, func(c *Command, f *Figures) string { return c.destIP(f) }},
	{"DEST_FAMILY", []string{"Destination", "Family"}, func(c *Command, f *Figures) string {
		if c.Family == sock.Inet6 {
			return "10"
		}
		return "2"
	}},
	{"LOCAL_SEND_CALLS", []string{"Local", "Send", "Calls"}, func(c *Command, f *Figures) string { return u64(c.calls(f, true)) }},
	{"LOCAL_RECV_CALLS", []string{"Local", "Recv", "Calls"}, func(c *Command, f *Figures) string { return u64(c.calls(f, false)) }},
	{"LOCAL_BYTES_SENT", []string{"Local", "Bytes", "Sent"}, func(c *Command, f *Figures) string { return u64(f.Last.BytesSent) }},
	{"LOCAL_BYTES_RECVD", []string{"Local", "Bytes", "Received"}, func(c *Command, f *Figures) string { return u64(f.Last.BytesReceived) }},
	{"LOCAL_NODELAY", []string{"Local", "NODELAY"}, func(c *Command, f *Figures) string { return bool01(c.NoDelay) }},
	{"REMOTE_SEND_CALLS", []string{"Remote", "Send", "Calls"}, func(c *Command, f *Figures) string { return u64(c.remoteCalls(f, true)) }},
	{"REMOTE_RECV_CALLS", []string{"Remote", "Recv", "Calls"}, func(c *Command, f *Figures) string { return u64(c.remoteCalls(f, false)) }},
	{"REMOTE_BYTES_SENT", []string{"Remote", "Bytes", "Sent"}, func(c *Command, f *Figures) string { return u64(remote(f).BytesSent) }},
	{"REMOTE_BYTES_RECVD", []string{"Remote", "Bytes", "Received"}, func(c *Command, f *Figures) string { return u64(remote(f).BytesReceived) }},
	{"REMOTE_NODELAY", []string{"Remote", "NODELAY"}, func(c *Command, f *Figures) string { return bool01(c.NoDelay) }},
	{"LOCAL_RELEASE", []string{"Local", "Release"}, func(c *Command, f *Figures) string { return "Deprecated" }},
	{"REMOTE_RELEASE", []string{"Remote", "Release"}, func(c *Command, f *Figures) string { return "Deprecated" }},
	{"RESULT_BRAND", []string{"Result", "Tag"}, func(c *Command, f *Figures) string { return c.Brand }},
	{"UUID", []string{"Test", "UUID"}, func(c *Command, f *Figures) string { return c.uuid }},
	{"MIN_LATENCY", []string{"Minimum", "Latency", "Microseconds"}, lat(func(f *Figures) float64 { return f.Latency.Min })},
	{"MAX_LATENCY", []string{"Maximum", "Latency", "Microseconds"}, lat(func(f *Figures) float64 { return f.Latency.Max })},
	{"P50_LATENCY", []string{"50th", "Percentile", "Latency", "Microseconds"}, lat(func(f *Figures) float64 { return f.Latency.P50 })},
	{"P90_LATENCY", []string{"90th", "Percentile", "Latency", "Microseconds"}, lat(func(f *Figures) float64 { return f.Latency.P90 })},
	{"P99_LATENCY", []string{"99th", "Percentile", "Latency", "Microseconds"}, lat(func(f *Figures) float64 { return f.Latency.P99 })},
	{"MEAN_LATENCY", []string{"Mean", "Latency", "Microseconds"}, func(c *Command, f *Figures) string {
		if f.Latency == nil || f.Latency.Count == 0 {
			return "-1.00"
		}
		return f2(f.Latency.Mean)
	}},
	{"STDDEV_LATENCY", []string{"Stddev", "Latency", "Microseconds"}, func(c *Command, f *Figures) string {
		if f.Latency == nil || f.Latency.Count == 0 {
			return "-1.00"
		}
		return f2(f.Latency.Stddev)
	}},
	{"COMMAND_LINE", []string{"Command", "Line"}, func(c *Command, f *Figures) string { return c.Line }},
	// netscript's names for the data connection's ends (netperf's are
	// SOURCE_ADDR and DEST_ADDR).
	{"LOCAL_ADDR", []string{"Local", "Address"}, func(c *Command, f *Figures) string { return c.sourceAddr() }},
	{"REMOTE_ADDR", []string{"Remote", "Address"}, func(c *Command, f *Figures) string { return c.destIP(f) }},
}

func remote(f *Figures) struct{ BytesSent, BytesReceived, SendCalls, RecvCalls, Transactions uint64 } {
	var r struct{ BytesSent, BytesReceived, SendCalls, RecvCalls, Transactions uint64 }
	if p := f.Last.Remote; p != nil {
		r.BytesSent, r.BytesReceived, r.SendCalls, r.RecvCalls, r.Transactions = p.BytesSent, p.BytesReceived, p.SendCalls, p.RecvCalls, p.Transactions
	}
	return r
}

// destIP is the address the data connection went to, as netperf prints
// it: the resolved IP, not the name given to -H.
func (c *Command) destIP(f *Figures) string {
	if a := f.Last.RemoteAddress; a != "" {
		return a
	}
	return c.destAddr()
}

func (c *Command) sourceAddr() string {
	if l := c.dataLocal(); l != "" {
		return l
	}
	if c.Family == sock.Inet6 {
		return "::0"
	}
	return "0.0.0.0"
}

// rate is bytes over the test's elapsed time in 10^6 bits/s (netperf's
// per-side throughputs are in bits even for RR tests).
func (c *Command) rate(f *Figures, bytes uint64) float64 {
	if f.Last.Elapsed <= 0 {
		return 0
	}
	return float64(bytes) * 8 / f.Last.Elapsed / 1e6
}

// calls is the local send or receive calls: a call per message for RR
// tests, the stream loop's counts otherwise.
func (c *Command) calls(f *Figures, send bool) uint64 {
	if c.Test.RR() {
		return f.Last.Transactions
	}
	if send {
		return f.Last.SendCalls
	}
	return f.Last.RecvCalls
}

func (c *Command) remoteCalls(f *Figures, send bool) uint64 {
	r := remote(f)
	if c.Test.RR() {
		return r.Transactions
	}
	if send {
		return r.SendCalls
	}
	return r.RecvCalls
}

func (c *Command) confLevel() int {
	if c.IterMax <= 1 {
		return 0
	}
	return c.Level
}

func (c *Command) confWidth() float64 {
	if c.IterMax <= 1 {
		return -1
	}
	return c.Width
}

func findSelector(name string) (selector, bool) {
	for _, s := range selectors {
		if s.name == name {
			return s, true
		}
	}
	return selector{}, false
}

func knownSelector(name string) bool {
	_, ok := findSelector(name)
	return ok || name == "ALL"
}

// selection is the selectors to print: the named ones, or netperf's
// default for the test (set_output_list_by_test), or every one for "all".
func (c *Command) selection() []selector {
	names := c.Selectors
	if len(names) == 1 && names[0] == "ALL" {
		var all []selector
		for _, s := range selectors {
			if s.name != "OUTPUT_NONE" && s.name != "LOCAL_ADDR" && s.name != "REMOTE_ADDR" {
				all = append(all, s)
			}
		}
		return all
	}
	if names == nil {
		w := c.Test
		switch {
		case w.RR():
			names = []string{"LSS_SIZE_END", "LSR_SIZE_END", "RSR_SIZE_END", "RSS_SIZE_END", "REQUEST_SIZE", "RESPONSE_SIZE"}
		case w.ServerSends:
			names = []string{"LSR_SIZE_END", "RSS_SIZE_END", "LOCAL_RECV_SIZE"}
		default:
			names = []string{"LSS_SIZE_END", "RSR_SIZE_END", "LOCAL_SEND_SIZE"}
		}
		names = append(names, "ELAPSED_TIME", "THROUGHPUT", "THROUGHPUT_UNITS")
		if c.LocalCPU || c.RemoteCPU {
			names = append(names, "LOCAL_CPU_UTIL", "LOCAL_CPU_METHOD", "LOCAL_SD", "REMOTE_CPU_UTIL", "REMOTE_CPU_METHOD", "REMOTE_SD", "SD_UNITS")
		}
	}
	var out []selector
	for _, n := range names {
		if s, ok := findSelector(n); ok {
			out = append(out, s)
		}
	}
	return out
}

// ListSelectorsText is what -o '?' prints: every selector netscript fills.
func ListSelectorsText() string {
	var names []string
	for _, s := range selectors {
		names = append(names, s.name)
	}
	return strings.Join(names, ",") + "\n"
}

// Omni writes the -k, -o or -O output.
func (c *Command) Omni(out io.Writer, f *Figures) {
	sel := c.selection()
	switch c.Output {
	case OutputKeyval:
		for _, s := range sel {
			v := s.value(c, f)
			switch s.name {
			case "RESULT_BRAND":
				if c.Brand == "" {
					continue // netperf prints no line for an unset brand
				}
				v = `"` + v + `"`
			case "COMMAND_LINE":
				v = `"` + v + `"`
			}
			fmt.Fprintf(out, "%s=%s\n", s.name, v)
		}
	case OutputCSV:
		if c.Headers {
			var hs []string
			for _, s := range sel {
				hs = append(hs, strings.Join(s.head, " "))
			}
			fmt.Fprintln(out, strings.Join(hs, ","))
		}
		var vs []string
		for _, s := range sel {
			v := s.value(c, f)
			switch s.name {
			case "CONFIDENCE_LEVEL":
				v = fmt.Sprintf("%2s", v)
			case "COMMAND_LINE":
				v = `"` + v + `"`
			}
			vs = append(vs, v)
		}
		line := strings.Join(vs, ",")
		if len(sel) > 0 && sel[len(sel)-1].name == "RESULT_BRAND" && c.Brand == "" {
			line += "," // netperf's extra field after an unset brand at the end
		}
		fmt.Fprintln(out, line)
	case OutputHuman:
		for i, block := range c.blocks(sel) {
			if i > 0 {
				fmt.Fprintln(out)
			}
			c.human(out, f, block)
		}
	}
}

// blocks splits -O's selectors at each ';' of the selection.
func (c *Command) blocks(sel []selector) [][]selector {
	if c.Selectors == nil {
		return [][]selector{sel}
	}
	var out [][]selector
	var cur []selector
	for _, n := range c.Selectors {
		if n == "" {
			out = append(out, cur)
			cur = nil
			continue
		}
		if s, ok := findSelector(n); ok {
			cur = append(cur, s)
		}
	}
	return append(out, cur)
}

// human writes -O's columns: four header lines and the values, each column
// as wide as its widest header line (values may overflow it).
func (c *Command) human(out io.Writer, f *Figures, sel []selector) {
	widths := make([]int, len(sel))
	for i, s := range sel {
		for _, h := range s.head {
			widths[i] = max(widths[i], len(h))
		}
		if s.name == "DIRECTION" {
			widths[i] = max(widths[i], len("Connection"))
		}
	}
	if c.Headers {
		for line := 0; line < 4; line++ {
			var b strings.Builder
			for i, s := range sel {
				h := ""
				if line < len(s.head) {
					h = s.head[line]
				}
				fmt.Fprintf(&b, "%-*s ", widths[i], h)
			}
			fmt.Fprintln(out, b.String())
		}
	}
	var b strings.Builder
	for i, s := range sel {
		v := s.value(c, f)
		if s.name == "COMMAND_LINE" {
			v = `"` + v + `"`
		}
		fmt.Fprintf(&b, "%-*s ", widths[i], v)
	}
	fmt.Fprintln(out, b.String())
}

// familyCode is SOURCE_FAMILY: the AF_ number asked for, 0 when not set.
func (c *Command) familyCode() string {
	switch c.Family {
	case sock.Inet:
		return "2"
	case sock.Inet6:
		return "10"
	}
	return "0"
}
