package netperfcli

import (
	"fmt"
	"io"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// The UNIX domain tests of netperf's nettest_unix.c (STREAM_STREAM,
// STREAM_RR, DG_STREAM, DG_RR), which netperf has only when built with
// --enable-unixdomain: the reference netperf 2.7.1 beside the project was
// built without them ("unknown to this netperf"), so what netscript prints
// follows nettest_unix.c's formats rather than a run of that netperf. They
// run against the embedded loopback server only: a UNIX domain socket is a
// name on this machine, and netserver serves netscript only over IP.

// unixTest is one of them: its netscript workload and its banner.
type unixTest struct {
	w     *spec.Workload
	title string
}

// unixTests are the UNIX domain tests by netperf's name.
var unixTests = map[string]*unixTest{
	"STREAM_STREAM": {spec.UnixStream, "STREAM STREAM TEST"},
	"STREAM_RR":     {spec.UnixRR, "STREAM REQUEST/RESPONSE TEST"},
	"DG_STREAM":     {spec.UnixgramStream, "DG UNIDIRECTIONAL SEND TEST"},
	"DG_RR":         {spec.UnixgramRR, "DG REQUEST/RESPONSE TEST"},
}

// unixOptions is nettest_unix.c's UNIX_ARGS.
const unixOptions = "hm:M:p:r:s:S:"

// isUnix reports whether the test is one of the UNIX domain tests.
func (c *Command) isUnix() bool { return unixTests[c.TestName] != nil }

// parseUnix reads the test's options as scan_unix_args does, with its
// defaults: requests and responses of a byte, the sizes the system's.
func (c *Command) parseUnix(g *getopt, out io.Writer) error {
	t := &c.Test
	t.ReqSize, t.RspSize = 1, 1
	switch c.TestName {
	case "STREAM_STREAM":
		t.Direction = dirXmit
	case "DG_STREAM":
		t.Direction, t.Protocol, t.SocketType = dirXmit, protoUDP, "Datagram"
	case "STREAM_RR":
		t.Direction = dirXmit | dirRecv
	case "DG_RR":
		t.Direction, t.Protocol, t.SocketType = dirXmit|dirRecv, protoUDP, "Datagram"
	}
	if c.NoControl {
		return &Error{Msg: "The UNIX tests do not know how to run with no control connection", Status: 255, Stdout: true}
	}
	for o := g.opt(unixOptions); o != done; o = g.opt(unixOptions) {
		v := g.optarg
		switch o {
		case '?', 'h':
			t.Help = true
			return nil
		case 'p':
			t.UnixDir = v // netscript's server names its socket: read, not used
		case 's':
			a, b := breakArgs(v)
			setConvert(a, &t.LSSReq)
			setConvert(b, &t.LSRReq)
		case 'S':
			a, b := breakArgs(v)
			setConvert(a, &t.RSSReq)
			setConvert(b, &t.RSRReq)
		case 'r':
			a, b := breakArgs(v)
			setConvert(a, &t.ReqSize)
			setConvert(b, &t.RspSize)
		case 'm':
			t.SendSize = convert(v)
		case 'M':
			t.RemoteRecvSize = convert(v)
		}
	}
	return nil
}

// unixWorkload is the UNIX domain test's workload; with -H it is refused,
// as netscript's UNIX domain tests are made by its own server, here.
func (c *Command) unixWorkload() (*spec.Workload, error) {
	if !c.embedded() {
		return nil, &Refusal{"-t " + c.TestName + " with -H", "its UNIX domain tests run against its embedded server on this machine " +
			"(leave -H out); netserver serves netscript over IP only"}
	}
	return unixTests[c.TestName].w, nil
}

// unixSpec leaves out what a UNIX domain socket has not: addresses,
// ports and an address family.
func unixSpec(s *spec.Spec) {
	s.Local, s.LocalPort, s.DataPort, s.Family = "", 0, 0, sock.Auto
	s.LocalPortRange = nil
}

// classicUnix is nettest_unix.c's table of the test: -v 0 the figure
// alone, else its table (the request/response tests' in two lines, the
// datagram stream's a line for each end).
func (c *Command) classicUnix(out io.Writer, f *Figures, cpu bool) {
	headers := c.PrintHeaders != 0
	if c.Verbosity <= 0 {
		switch {
		case cpu && c.TestName == "DG_STREAM":
			fmt.Fprintf(out, "%6.2f\n", c.unixSD(f))
		case cpu:
			fmt.Fprintf(out, "%6.3f\n", c.unixSD(f))
		default:
			fmt.Fprintf(out, "%7.2f\n", f.Thruput)
		}
		return
	}
	switch c.TestName {
	case "STREAM_STREAM":
		if headers && cpu {
			fmt.Fprintf(out, "Recv   Send    Send                          Utilization    Service Demand\n"+
				"Socket Socket  Message  Elapsed              Send   Recv    Send    Recv\n"+
				"Size   Size    Size     Time     Throughput  local  remote  local   remote\n"+
				"bytes  bytes   bytes    secs.    %-8.8s/s  %%      %%       us/KB   us/KB\n\n", c.unitsWord())
		} else if headers {
			fmt.Fprintf(out, "Recv   Send    Send                          \n"+
				"Socket Socket  Message  Elapsed              \n"+
				"Size   Size    Size     Time     Throughput  \n"+
				"bytes  bytes   bytes    secs.    %s/sec  \n\n", c.unitsWord())
		}
		if cpu {
			fmt.Fprintf(out, "%5d  %5d  %6d    %-6.2f     %7.2f   %-6.2f %-6.2f  %-6.3f  %-6.3f\n",
				c.rsr(f), c.lss(f), c.localSendSize(f), f.Elapsed, f.Thruput, f.LocalCPU, f.RemoteCPU, f.LocalSD, f.RemoteSD)
		} else {
			fmt.Fprintf(out, "%5d  %5d  %6d    %-6.2f   %7.2f   \n", c.rsr(f), c.lss(f), c.localSendSize(f), f.Elapsed, f.Thruput)
		}
	case "STREAM_RR", "DG_RR":
		if headers && cpu {
			fmt.Fprint(out, "Local /Remote\n"+
				"Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n"+
				"Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n"+
				"bytes  bytes  bytes   bytes  secs.   per sec  %      %      us/Tr   us/Tr\n\n")
		} else if headers {
			fmt.Fprint(out, "Local /Remote\n"+
				"Socket Size   Request  Resp.   Elapsed  Trans.\n"+
				"Send   Recv   Size     Size    Time     Rate         \n"+
				"bytes  Bytes  bytes    bytes   secs.    per sec   \n\n")
		}
		if cpu {
			fmt.Fprintf(out, "%-6d %-6d %-6d  %-6d %-6.2f  %-6.2f   %-6.2f %-6.2f %-6.3f  %-6.3f\n",
				c.lss(f), c.lsr(f), c.reqSize(), c.rspSize(), f.Elapsed, f.Thruput, f.LocalCPU, f.RemoteCPU, f.LocalSD, f.RemoteSD)
		} else {
			fmt.Fprintf(out, "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   \n", c.lss(f), c.lsr(f), c.reqSize(), c.rspSize(), f.Elapsed, f.Thruput)
		}
		fmt.Fprintf(out, "%-6d %-6d\n", c.rss(f), c.rsr(f))
	case "DG_STREAM":
		sent, errs, recvd, sendRate, recvRate := c.udpStreamCounts(f)
		if headers && cpu {
			fmt.Fprintf(out, "Socket  Message  Elapsed      Messages                   CPU     Service\n"+
				"Size    Size     Time         Okay Errors   Throughput   Util    Demand\n"+
				"bytes   bytes    secs            #      #   %s/sec   %%       us/KB\n\n", c.unitsWord())
		} else if headers {
			fmt.Fprintf(out, "Socket  Message  Elapsed      Messages                \n"+
				"Size    Size     Time         Okay Errors   Throughput\n"+
				"bytes   bytes    secs            #      #   %s/sec\n\n", c.unitsWord())
		}
		if cpu {
			fmt.Fprintf(out, "%5d   %5d    %-7.2f   %7d %6d    %7.1f      %-6.2f  %-6.3f\n"+
				"%5d            %-7.2f   %7d           %7.1f      %-6.2f  %-6.3f\n\n",
				c.lss(f), c.localSendSize(f), f.Elapsed, sent, errs, sendRate, f.LocalCPU, f.LocalSD,
				c.rsr(f), f.Elapsed, recvd, recvRate, f.RemoteCPU, f.RemoteSD)
		} else {
			fmt.Fprintf(out, "%5d   %5d    %-7.2f   %7d %6d    %7.2f\n"+
				"%5d            %-7.2f   %7d           %7.2f\n\n",
				c.lss(f), c.localSendSize(f), f.Elapsed, sent, errs, sendRate, c.rsr(f), f.Elapsed, recvd, recvRate)
		}
	}
}

// unixSD is the service demand -v 0 prints with -c or -C: the local one
// when -c was given, else the remote one.
func (c *Command) unixSD(f *Figures) float64 {
	if c.LocalCPU {
		return f.LocalSD
	}
	return f.RemoteSD
}
