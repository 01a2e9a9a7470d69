package netperfcli

import (
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"
)

// testTitle is how netperf's banner names the test.
func (c *Command) testTitle() string {
	switch c.TestName {
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
	return trunc("OMNI "+c.directionName()+" TEST", 31)
}

// bannerAddr is one end of the banner: the name as given, and in
// parentheses its address as netperf's inet_ntop into an 8-byte buffer
// leaves it (the address when it has at most 7 characters, else nothing).
func bannerAddr(name string, a netip.Addr) string {
	ip := ""
	if a.IsValid() {
		if s := a.String(); len(s) <= 7 {
			ip = s
		}
	}
	return fmt.Sprintf("%s (%s)", name, ip)
}

// afName is netperf's inet_ftos.
func afName(v6 bool) string {
	if v6 {
		return "AF_INET6"
	}
	return "AF_INET"
}

// Banner writes netperf's first line: the test, both ends of the data
// connection and the options in force. remote is the address the data
// connection went to, if known.
func (c *Command) Banner(out io.Writer, remote netip.Addr) {
	v6 := remote.IsValid() && remote.Unmap().Is6() || !remote.IsValid() && c.dataFamily() == afInet6
	if !remote.IsValid() && c.destAddr() == "localhost" && !v6 {
		remote = netip.MustParseAddr("127.0.0.1")
	}
	from := c.sourceAddr()
	if c.Test.DataLocal == "" && c.Test.DataHost != "" || from == "0.0.0.0" || from == "::0" {
		from = "0.0.0.0"
		if v6 {
			from = "::0"
		}
	}
	local, _ := netip.ParseAddr(from)
	if local.IsValid() && local.IsUnspecified() {
		if v6 {
			local = netip.IPv6Unspecified()
		} else {
			local = netip.IPv4Unspecified()
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s from %s port %d %s to %s port %d %s", c.testTitle(),
		bannerAddr(from, local), atoi(c.Test.LocalDataPort), afName(v6),
		bannerAddr(c.destAddr(), remote.Unmap()), atoi(c.Test.RemoteDataPort), afName(v6))
	if c.IterMax > 1 {
		only := ""
		if c.ResultOnly {
			only = " on result only"
		}
		fmt.Fprintf(&b, " : +/-%.3f%% @ %2d%% conf. %s", c.Interval/0.02, c.Level, only)
	}
	if c.Test.NoDelay {
		b.WriteString(" : nodelay")
	}
	if c.Test.CopyAvoid {
		b.WriteString(" : copy avoidance")
	}
	if c.NoControl {
		b.WriteString(" : no control")
	}
	b.WriteString(" : histogram : interval : demo")
	if t := c.testTitle(); strings.Contains(t, "REQUEST/RESPONSE") {
		fmt.Fprintf(&b, " : first burst %d", c.Test.Burst)
	}
	if c.CPUBinding {
		b.WriteString(" : cpu bind")
	}
	fmt.Fprintln(out, b.String())
}

// Warning writes netperf's confidence warning block when the target was
// missed (the classic tables only, and not TCP_CC's).
func (c *Command) Warning(out io.Writer, f *Figures) {
	if f.Met || c.IterMax <= 1 || c.TestName == "TCP_CC" {
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
		f.ResultConfid, cpu(f.LocalConfid), cpu(f.RemoteConfid))
}

// Interim writes the i-th interim result (from 0) as netperf's demo mode
// does in the output form of the command: a line, CSV values or keyvals.
func (c *Command) Interim(out io.Writer, i int, throughput, secs float64, ending time.Time) {
	ms := ending.UnixMilli()
	switch c.Test.Output {
	case OutputKeyval:
		fmt.Fprintf(out, "NETPERF_INTERIM_RESULT[%d]=%.2f\nNETPERF_UNITS[%d]=%s/s\nNETPERF_INTERVAL[%d]=%.3f\nNETPERF_ENDING[%d]=%d.%03d\n",
			i, throughput, i, c.unitsWord(), i, secs, i, ms/1000, ms%1000)
	case OutputCSV:
		fmt.Fprintf(out, "%7.2f,%s/s,%.3f,%d.%03d\n", throughput, c.unitsWord(), secs, ms/1000, ms%1000)
	default:
		fmt.Fprintf(out, "Interim result: %7.2f %s/s over %.3f seconds ending at %d.%03d\n",
			throughput, c.unitsWord(), secs, ms/1000, ms%1000)
	}
}

// band reports whether a request/response test reports bits or bytes
// (-f other than x).
func (c *Command) band() bool { return c.Format != 'x' }
