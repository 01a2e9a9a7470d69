package netperfcli

import (
	"fmt"
	"io"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// testTitle is how netperf's banner names each test.
func testTitle(w *spec.Workload) string {
	switch w.Netperf {
	case "TCP_RR":
		return "MIGRATED TCP REQUEST/RESPONSE TEST"
	case "TCP_CRR":
		return "MIGRATED TCP Connect/Request/Response TEST"
	case "UDP_RR":
		return "MIGRATED UDP REQUEST/RESPONSE TEST"
	case "TCP_STREAM":
		return "MIGRATED TCP STREAM TEST"
	case "TCP_MAERTS":
		return "MIGRATED TCP MAERTS TEST"
	case "UDP_STREAM":
		return "MIGRATED UDP STREAM TEST"
	case "TCP_CC":
		return "TCP Connect/Close TEST"
	}
	return w.Netperf + " TEST"
}

// firstBurst reports whether the banner names the burst (netperf does for
// the request/response tests that keep their connection).
func firstBurst(w *spec.Workload) bool { return w.Netperf == "TCP_RR" || w.Netperf == "UDP_RR" }

// brandPrinted reports whether the classic table carries the -B brand:
// only the brief form (-P 0), and netperf 2.7.1 drops it from TCP_CRR,
// TCP_CC and UDP_STREAM.
func (c *Command) brandPrinted() bool {
	if c.Headers {
		return false
	}
	switch c.Test.Netperf {
	case "TCP_CRR", "TCP_CC", "UDP_STREAM":
		return false
	}
	return true
}

// Banner writes netperf's first line: the test, both ends and the options
// in force.
func (c *Command) Banner(out io.Writer) {
	v6 := c.Family == sock.Inet6
	fam, any, anyName := "AF_INET", "0.0.0.0", "0.0.0.0"
	if v6 {
		fam, any, anyName = "AF_INET6", "::0", "::"
	}
	from := fmt.Sprintf("%s (%s)", any, anyName)
	if l := c.dataLocal(); l != "" {
		from = l + " ()"
	}
	host := c.Host
	if host == "" {
		host = "127.0.0.1"
		if v6 {
			host = "::1"
		}
	}
	to := host + " ()"
	if v6 {
		to = fmt.Sprintf("%s (%s)", host, host)
	}
	fmt.Fprintf(out, "%s from %s port %d %s to %s port %d %s", testTitle(c.Test), from, c.LocalPort, fam, to, c.DataPort, fam)
	if c.IterMax > 1 {
		only := ""
		if c.ResultOnly {
			only = " on result only"
		}
		fmt.Fprintf(out, " : +/-%.3f%% @ %2d%% conf. %s", c.Width/2, c.Level, only)
	}
	if c.NoDelay {
		fmt.Fprint(out, " : nodelay")
	}
	if c.NoControl {
		fmt.Fprint(out, " : no control")
	}
	fmt.Fprint(out, " : histogram : interval : demo")
	if firstBurst(c.Test) {
		fmt.Fprintf(out, " : first burst %d", c.Burst)
	}
	if c.CPU != nil || c.RemoteCPUBind != nil {
		fmt.Fprint(out, " : cpu bind")
	}
	fmt.Fprintln(out)
}

func (c *Command) dataLocal() string {
	if c.DataLocal != "" {
		return c.DataLocal
	}
	return c.Local
}

// Warning writes netperf's confidence warning block when the target was
// missed (netperf's classic printers only, and not TCP_CC's).
func (c *Command) Warning(out io.Writer, f *Figures) {
	if f.Met || c.IterMax <= 1 || c.Test.Netperf == "TCP_CC" {
		return
	}
	cpu := func(v float64) float64 { return max(v, 0) }
	fmt.Fprintf(out, "!!! WARNING\n"+
		"!!! Desired confidence was not achieved within the specified iterations.\n"+
		"!!! This implies that there was variability in the test environment that\n"+
		"!!! must be investigated before going further.\n"+
		"!!! Confidence intervals: Throughput      : %.3f%%\n"+
		"!!!                       Local CPU util  : %.3f%%\n"+
		"!!!                       Remote CPU util : %.3f%%\n\n",
		f.ThroughputConfid, cpu(f.LocalConfid), cpu(f.RemoteConfid))
}

// Interim writes the i-th interim result (from 0) as netperf's demo mode
// does in the output form of the command: a line, CSV values or keyvals.
func (c *Command) Interim(out io.Writer, i int, throughput, secs float64, ending time.Time) {
	ms := ending.UnixMilli()
	switch c.Output {
	case OutputKeyval:
		fmt.Fprintf(out, "NETPERF_INTERIM_RESULT[%d]=%.2f\nNETPERF_UNITS[%d]=%s\nNETPERF_INTERVAL[%d]=%.3f\nNETPERF_ENDING[%d]=%d.%03d\n",
			i, throughput, i, c.units(), i, secs, i, ms/1000, ms%1000)
	case OutputCSV:
		fmt.Fprintf(out, "%.2f,%s,%.3f,%d.%03d\n", throughput, c.units(), secs, ms/1000, ms%1000)
	default:
		fmt.Fprintf(out, "Interim result: %7.2f %s/s over %.3f seconds ending at %d.%03d\n",
			throughput, c.unitsWord(), secs, ms/1000, ms%1000)
	}
}

// Classic writes the test's table as netperf 2.7.1 prints it.
func (c *Command) Classic(out io.Writer, f *Figures) {
	cpu := c.LocalCPU || c.RemoteCPU
	switch {
	case c.Verbosity == 0:
		c.terse(out, f, cpu)
	case c.Test.RR():
		c.classicRR(out, f, cpu)
	case c.Test.Datagram:
		c.classicUDPStream(out, f, cpu)
	default:
		c.classicStream(out, f, cpu)
	}
}

func (c *Command) brand() string {
	if c.brandPrinted() {
		return c.Brand
	}
	return ""
}

func (c *Command) classicRR(out io.Writer, f *Figures, cpu bool) {
	cfg := f.Last.Config
	w := c.Test.Netperf
	if !cpu {
		switch {
		case c.Headers && c.band():
			fmt.Fprintf(out, "Local /Remote\n"+
				"Socket Size   Request  Resp.   Elapsed  \n"+
				"Send   Recv   Size     Size    Time     Throughput \n"+
				"bytes  Bytes  bytes    bytes   secs.    %s/sec   \n\n", c.unitsWord())
		case c.Headers:
			fmt.Fprint(out, "Local /Remote\n"+
				"Socket Size   Request  Resp.   Elapsed  Trans.\n"+
				"Send   Recv   Size     Size    Time     Rate         \n"+
				"bytes  Bytes  bytes    bytes   secs.    per sec   \n\n")
		}
		fmt.Fprintf(out, "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   %s\n", cfg.LocalSendBuffer, cfg.LocalRecvBuffer,
			c.reqSize(f), c.rspSize(f), f.Elapsed, f.Throughput, c.brand())
		fmt.Fprintf(out, "%-6d %-6d\n", cfg.RemoteSendBuffer, cfg.RemoteRecvBuffer)
		return
	}
	if c.Headers {
		method := "% S    % S"
		if w == "TCP_CRR" || w == "TCP_CC" {
			method = "%      %  "
		}
		if c.band() {
			fmt.Fprintf(out, "Local /Remote\n"+
				"Socket Size   Request Resp.  Elapsed Tput     CPU    CPU    S.dem   S.dem\n"+
				"Send   Recv   Size    Size   Time    %-8.8s local  remote local   remote\n"+
				"bytes  bytes  bytes   bytes  secs.   per sec  %s    us/KB   us/KB\n\n", c.unitsWord(), method)
		} else {
			fmt.Fprintf(out, "Local /Remote\n"+
				"Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n"+
				"Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n"+
				"bytes  bytes  bytes   bytes  secs.   per sec  %s    us/Tr   us/Tr\n\n", method)
		}
	}
	gap := "   "
	if w == "TCP_RR" {
		gap = "  "
	}
	fmt.Fprintf(out, "%-6d %-6d %-6d  %-6d %-6.2f  %-6.2f%s%-6.2f %-6.2f %-6.3f  %-6.3f", cfg.LocalSendBuffer, cfg.LocalRecvBuffer,
		c.reqSize(f), c.rspSize(f), f.Elapsed, f.Throughput, gap, f.LocalCPU, f.RemoteCPU, f.LocalSD, f.RemoteSD)
	if w == "TCP_RR" || w == "UDP_RR" {
		fmt.Fprintf(out, " %s", c.brand())
	}
	fmt.Fprintf(out, "\n%-6d %-6d\n", cfg.RemoteSendBuffer, cfg.RemoteRecvBuffer)
}

// reqSize and rspSize are the RR sizes as netperf prints them (TCP_CC
// carries none but prints 1 and 1).
func (c *Command) reqSize(f *Figures) int {
	if f.Last.Config.Request > 0 {
		return f.Last.Config.Request
	}
	return 1
}

func (c *Command) rspSize(f *Figures) int {
	if f.Last.Config.Response > 0 {
		return f.Last.Config.Response
	}
	return 1
}

// streamSizes are the three size columns of a stream test: the
// receiver's socket, the sender's socket and the send size.
func streamSizes(f *Figures, maerts bool) (recvSock, sendSock, msg int) {
	cfg := f.Last.Config
	if maerts {
		return cfg.LocalRecvBuffer, cfg.RemoteSendBuffer, cfg.SendSize
	}
	return cfg.RemoteRecvBuffer, cfg.LocalSendBuffer, cfg.SendSize
}

func (c *Command) classicStream(out io.Writer, f *Figures, cpu bool) {
	maerts := c.Test.ServerSends
	r, s, m := streamSizes(f, maerts)
	if !cpu {
		if c.Headers {
			fmt.Fprintf(out, "Recv   Send    Send                          \n"+
				"Socket Socket  Message  Elapsed              \n"+
				"Size   Size    Size     Time     Throughput  \n"+
				"bytes  bytes   bytes    secs.    %s/sec  \n\n", c.unitsWord())
		}
		fmt.Fprintf(out, "%6d %6d %6d    %-6.2f   %7.2f   %s\n", r, s, m, f.Elapsed, f.Throughput, c.brand())
		return
	}
	if c.Headers {
		sides := "Send     Recv     Send    Recv"
		if maerts {
			sides = "Recv     Send     Recv    Send"
		}
		fmt.Fprintf(out, "Recv   Send    Send                          Utilization       Service Demand\n"+
			"Socket Socket  Message  Elapsed              %s\n"+
			"Size   Size    Size     Time     Throughput  local    remote   local   remote\n"+
			"bytes  bytes   bytes    secs.    %-8.8s/s  %% S      %% S      us/KB   us/KB\n\n", sides, c.unitsWord())
	}
	fmt.Fprintf(out, "%6d %6d %6d    %-6.2f     %7.2f   %-6.2f   %-6.2f   %-6.3f  %-6.3f %s\n",
		r, s, m, f.Elapsed, f.Throughput, f.LocalCPU, f.RemoteCPU, f.LocalSD, f.RemoteSD, c.brand())
}

func (c *Command) classicUDPStream(out io.Writer, f *Figures, cpu bool) {
	cfg := f.Last.Config
	var sent, recvd uint64
	if u := f.Last.UDP; u != nil {
		sent = u.Sent
		if u.Received != nil {
			recvd = *u.Received
		}
	}
	errs := uint64(0)
	if u := f.Last.UDP; u != nil {
		errs = u.Refused
	}
	// The first line is the sender's rate, the second the receiver's,
	// which is the test's throughput; without a control connection no
	// receiver reports (netperf prints 0 there).
	sendRate, recvRate := f.Throughput, f.Throughput
	if f.Last.Elapsed > 0 {
		sendRate = c.scaleRate(float64(f.Last.BytesSent) * 8 / f.Last.Elapsed / 1e6)
	}
	if c.NoControl {
		recvRate = 0
	}
	if !cpu {
		if c.Headers {
			fmt.Fprintf(out, "Socket  Message  Elapsed      Messages                \n"+
				"Size    Size     Time         Okay Errors   Throughput\n"+
				"bytes   bytes    secs            #      #   %s/sec\n\n", c.unitsWord())
		}
		fmt.Fprintf(out, "%6d %7d   %-7.2f   %7d %6d    %7.2f\n", cfg.LocalSendBuffer, cfg.SendSize, f.Elapsed, sent, errs, sendRate)
		fmt.Fprintf(out, "%6d           %-7.2f   %7d           %7.2f\n\n", cfg.RemoteRecvBuffer, f.Elapsed, recvd, recvRate)
		return
	}
	if c.Headers {
		fmt.Fprintf(out, "Socket  Message  Elapsed      Messages                   CPU      Service\n"+
			"Size    Size     Time         Okay Errors   Throughput   Util     Demand\n"+
			"bytes   bytes    secs            #      #   %s/sec %% SS     us/KB\n\n", c.unitsWord())
	}
	fmt.Fprintf(out, "%6d %7d   %-7.2f   %7d %6d    %7.1f     %-6.2f   %-6.3f\n", cfg.LocalSendBuffer, cfg.SendSize, f.Elapsed, sent, errs, sendRate, f.LocalCPU, f.LocalSD)
	fmt.Fprintf(out, "%6d           %-7.2f   %7d           %7.1f     %-6.2f   %-6.3f\n\n", cfg.RemoteRecvBuffer, f.Elapsed, recvd, recvRate, f.RemoteCPU, f.RemoteSD)
}

// terse is -v 0's output: the throughput alone, or with -c/-C the local
// service demand alone, in each test's netperf format.
func (c *Command) terse(out io.Writer, f *Figures, cpu bool) {
	switch w := c.Test.Netperf; {
	case w == "TCP_CRR" || w == "TCP_CC":
		if cpu {
			fmt.Fprintf(out, "%6.3f\n", f.LocalSD)
		} else {
			fmt.Fprintf(out, "%7.2f\n", f.Throughput)
		}
	case w == "UDP_STREAM":
		if cpu {
			fmt.Fprintf(out, "%6.2f S\n", f.LocalSD)
		} else {
			fmt.Fprintf(out, "%7.2f\n", f.Throughput)
		}
	case cpu:
		fmt.Fprintf(out, "%6.3f S %s\n", f.LocalSD, c.brand())
	default:
		fmt.Fprintf(out, "%7.2f %s\n", f.Throughput, c.brand())
	}
}
