package netperfcli

import (
	"fmt"
	"io"
)

// Classic writes the test's table as netperf 2.7.1 prints it.
func (c *Command) Classic(out io.Writer, f *Figures) {
	cpu := c.LocalCPU || c.RemoteCPU
	switch {
	case c.TestName == "TCP_CC":
		c.classicCC(out, f, cpu)
	case c.Verbosity <= 0:
		c.terse(out, f, cpu)
	case c.isRR() || c.isCC():
		c.classicRR(out, f, cpu)
	case c.Test.Protocol == protoUDP:
		c.classicUDPStream(out, f, cpu)
	default:
		c.classicStream(out, f, cpu)
	}
}

// brand is what ends a classic line: the -B brand with -P 0, else
// nothing (and nothing for the tests whose lines netperf 2.7.1 prints
// without it).
func (c *Command) brand() string {
	if c.PrintHeaders != 0 || c.Brand == nil {
		return ""
	}
	switch c.TestName {
	case "TCP_CRR", "TCP_CC", "UDP_STREAM":
		return ""
	}
	return *c.Brand
}

func (c *Command) classicRR(out io.Writer, f *Figures, cpu bool) {
	w := c.TestName
	headers := c.PrintHeaders != 0
	if !cpu {
		switch {
		case headers && c.band():
			fmt.Fprintf(out, "Local /Remote\n"+
				"Socket Size   Request  Resp.   Elapsed  \n"+
				"Send   Recv   Size     Size    Time     Throughput \n"+
				"bytes  Bytes  bytes    bytes   secs.    %s/sec   \n\n", c.unitsWord())
		case headers:
			fmt.Fprint(out, "Local /Remote\n"+
				"Socket Size   Request  Resp.   Elapsed  Trans.\n"+
				"Send   Recv   Size     Size    Time     Rate         \n"+
				"bytes  Bytes  bytes    bytes   secs.    per sec   \n\n")
		}
		fmt.Fprintf(out, "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   %s\n", c.lss(f), c.lsr(f),
			c.reqSize(), c.rspSize(), f.Elapsed, f.Thruput, c.brand())
		fmt.Fprintf(out, "%-6d %-6d\n", c.rss(f), c.rsr(f))
		return
	}
	if headers {
		method := fmt.Sprintf("%% %c    %% %c", f.Local.Method, f.Remote.Method)
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
	fmt.Fprintf(out, "%-6d %-6d %-6d  %-6d %-6.2f  %-6.2f%s%-6.2f %-6.2f %-6.3f  %-6.3f", c.lss(f), c.lsr(f),
		c.reqSize(), c.rspSize(), f.Elapsed, f.Thruput, gap, f.LocalCPU, f.RemoteCPU, f.LocalSD, f.RemoteSD)
	if w == "TCP_RR" || w == "UDP_RR" {
		fmt.Fprintf(out, " %s", c.brand())
	}
	fmt.Fprintf(out, "\n%-6d %-6d\n", c.rss(f), c.rsr(f))
}

// reqSize and rspSize are the sizes a request/response table prints.
func (c *Command) reqSize() int { return c.Test.ReqSize }
func (c *Command) rspSize() int { return c.Test.RspSize }

// streamSizes are the three size columns of a stream test as netperf
// 2.7.1 fills them: the receiver's socket, the sender's and the send
// size; a TCP_MAERTS table with CPU columns prints TCP_STREAM's sockets
// (the far end's receive buffer, this end's send buffer), as netperf's.
func (c *Command) streamSizes(f *Figures, cpu bool) (recvSock, sendSock, msg int) {
	if c.Test.Direction == dirRecv {
		if cpu {
			return c.rsr(f), c.lss(f), c.remoteSendSize(f)
		}
		return c.lsr(f), c.rss(f), c.remoteSendSize(f)
	}
	return c.rsr(f), c.lss(f), c.localSendSize(f)
}

func (c *Command) classicStream(out io.Writer, f *Figures, cpu bool) {
	maerts := c.Test.Direction == dirRecv
	r, s, m := c.streamSizes(f, cpu)
	headers := c.PrintHeaders != 0
	if !cpu {
		if headers {
			fmt.Fprintf(out, "Recv   Send    Send                          \n"+
				"Socket Socket  Message  Elapsed              \n"+
				"Size   Size    Size     Time     Throughput  \n"+
				"bytes  bytes   bytes    secs.    %s/sec  \n\n", c.unitsWord())
		}
		fmt.Fprintf(out, "%6d %6d %6d    %-6.2f   %7.2f   %s\n", r, s, m, f.Elapsed, f.Thruput, c.brand())
		return
	}
	if headers {
		sides := "Send     Recv     Send    Recv"
		if maerts {
			sides = "Recv     Send     Recv    Send"
		}
		fmt.Fprintf(out, "Recv   Send    Send                          Utilization       Service Demand\n"+
			"Socket Socket  Message  Elapsed              %s\n"+
			"Size   Size    Size     Time     Throughput  local    remote   local   remote\n"+
			"bytes  bytes   bytes    secs.    %-8.8s/s  %% %c      %% %c      us/KB   us/KB\n\n", sides, c.unitsWord(),
			f.Local.Method, f.Remote.Method)
	}
	fmt.Fprintf(out, "%6d %6d %6d    %-6.2f     %7.2f   %-6.2f   %-6.2f   %-6.3f  %-6.3f %s\n",
		r, s, m, f.Elapsed, f.Thruput, f.LocalCPU, f.RemoteCPU, f.LocalSD, f.RemoteSD, c.brand())
}

func (c *Command) classicUDPStream(out io.Writer, f *Figures, cpu bool) {
	sent, recvd := c.localSendCalls(f), c.remoteRecvCalls(f)
	errs := uint64(0)
	if u := f.Last.UDP; u != nil {
		errs = u.Refused
	}
	// The first line is the sender's rate, the second the receiver's,
	// which is the test's throughput; without a control connection no
	// receiver reports (netperf prints 0 there).
	sendRate, recvRate := c.calcThruput(float64(f.Last.BytesSent), f.Last.Elapsed), f.Thruput
	if c.NoControl {
		recvRate = 0
	}
	headers := c.PrintHeaders != 0
	if !cpu {
		if headers {
			fmt.Fprintf(out, "Socket  Message  Elapsed      Messages                \n"+
				"Size    Size     Time         Okay Errors   Throughput\n"+
				"bytes   bytes    secs            #      #   %s/sec\n\n", c.unitsWord())
		}
		fmt.Fprintf(out, "%6d %7d   %-7.2f   %7d %6d    %7.2f\n", c.lss(f), c.localSendSize(f), f.Elapsed, sent, errs, sendRate)
		fmt.Fprintf(out, "%6d           %-7.2f   %7d           %7.2f\n\n", c.rsr(f), f.Elapsed, recvd, recvRate)
		return
	}
	if headers {
		fmt.Fprintf(out, "Socket  Message  Elapsed      Messages                   CPU      Service\n"+
			"Size    Size     Time         Okay Errors   Throughput   Util     Demand\n"+
			"bytes   bytes    secs            #      #   %s/sec %% SS     us/KB\n\n", c.unitsWord())
	}
	fmt.Fprintf(out, "%6d %7d   %-7.2f   %7d %6d    %7.1f     %-6.2f   %-6.3f\n", c.lss(f), c.localSendSize(f), f.Elapsed, sent, errs, sendRate, f.LocalCPU, f.LocalSD)
	fmt.Fprintf(out, "%6d           %-7.2f   %7d           %7.1f     %-6.2f   %-6.3f\n\n", c.rsr(f), f.Elapsed, recvd, recvRate, f.RemoteCPU, f.RemoteSD)
}

// terse is -v 0's output: the throughput alone, or with -c/-C the local
// service demand alone, in each test's netperf format.
func (c *Command) terse(out io.Writer, f *Figures, cpu bool) {
	switch w := c.TestName; {
	case w == "TCP_CRR" || w == "TCP_CC":
		if cpu {
			fmt.Fprintf(out, "%6.3f\n", f.LocalSD)
		} else {
			fmt.Fprintf(out, "%7.2f\n", f.Thruput)
		}
	case w == "UDP_STREAM":
		if cpu {
			fmt.Fprintf(out, "%6.2f S\n", f.LocalSD)
		} else {
			fmt.Fprintf(out, "%7.2f\n", f.Thruput)
		}
	case cpu && c.LocalCPU:
		fmt.Fprintf(out, "%6.3f %c %s\n", f.LocalSD, f.Local.Method, c.brand())
	case cpu:
		fmt.Fprintf(out, "%6.3f %c %s\n", f.RemoteSD, f.Remote.Method, c.brand())
	default:
		fmt.Fprintf(out, "%7.2f %s\n", f.Thruput, c.brand())
	}
}

// classicCC is TCP_CC's table (nettest_bsd.c's send_tcp_cc): transactions
// per second whatever -f says, no brand.
func (c *Command) classicCC(out io.Writer, f *Figures, cpu bool) {
	headers := c.PrintHeaders != 0
	switch {
	case c.Verbosity <= 0 && cpu && c.LocalCPU:
		fmt.Fprintf(out, "%6.3f\n", cfloat(f.LocalSD))
	case c.Verbosity <= 0 && cpu:
		fmt.Fprintf(out, "%6.3f\n", cfloat(f.RemoteSD))
	case c.Verbosity <= 0:
		fmt.Fprintf(out, "%7.2f\n", cfloat(f.Thruput))
	case cpu:
		if headers {
			fmt.Fprint(out, "Local /Remote\n"+
				"Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n"+
				"Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n"+
				"bytes  bytes  bytes   bytes  secs.   per sec  %      %      us/Tr   us/Tr\n\n")
		}
		fmt.Fprintf(out, "%-6d %-6d %-6d  %-6d %-6.2f  %-6.2f   %-6.2f %-6.2f %-6.3f  %-6.3f\n", c.lss(f), c.lsr(f),
			c.reqSize(), c.rspSize(), cfloat(f.Elapsed), cfloat(f.Thruput), cfloat(f.LocalCPU), cfloat(f.RemoteCPU),
			cfloat(f.LocalSD), cfloat(f.RemoteSD))
		fmt.Fprintf(out, "%-6d %-6d\n", c.rss(f), c.rsr(f))
	default:
		if headers {
			fmt.Fprint(out, "Local /Remote\n"+
				"Socket Size   Request  Resp.   Elapsed  Trans.\n"+
				"Send   Recv   Size     Size    Time     Rate         \n"+
				"bytes  Bytes  bytes    bytes   secs.    per sec   \n\n")
		}
		fmt.Fprintf(out, "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   \n", c.lss(f), c.lsr(f), c.reqSize(), c.rspSize(),
			cfloat(f.Elapsed), cfloat(f.Thruput))
		fmt.Fprintf(out, "%-6d %-6d\n", c.rss(f), c.rsr(f))
	}
}
