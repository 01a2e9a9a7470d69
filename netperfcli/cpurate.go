package netperfcli

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"time"

	"netscript/engine/npwire"
)

// cpuRate is netperf's LOC_CPU and REM_CPU tests: the CPU rate netperf
// calibrates (100 with /proc/stat, which needs no calibration) of this
// machine, or the one a netserver answers CPU_CALIBRATE with; with -v 2
// the CPU count after it.
func (c *Command) cpuRate(ctx context.Context, stdout, stderr io.Writer) int {
	if c.TestName == "LOC_CPU" {
		fmt.Fprintf(stdout, "%g", 100.0)
		if c.Verbosity > 1 {
			fmt.Fprintf(stdout, "\nThere %s\n", cpus(runtime.NumCPU(), "local"))
		}
		return 0
	}
	rate, n := float32(100), runtime.NumCPU()
	if !c.hostDefaulted {
		m, err := c.calibrate(ctx)
		if err != nil {
			return c.failed(err, false, stdout, stderr)
		}
		if m.Word2 == 0 {
			rate, n = m.Float(0), int(m.Int(1))
		} else {
			rate = 0 // netperf reads a netserver's error as a rate of 0
		}
	}
	fmt.Fprintf(stdout, "%g", rate)
	if c.Verbosity > 1 {
		fmt.Fprintf(stdout, "\nThere %s\n", cpus(n, "remote"))
	}
	return 0
}

func cpus(n int, where string) string {
	if n > 1 {
		return fmt.Sprintf("are %d %s cpus", n, where)
	}
	return fmt.Sprintf("is %d %s cpu", n, where)
}

// calibrate asks the netserver at -H for its CPU rate (CPU_CALIBRATE).
func (c *Command) calibrate(ctx context.Context) (*npwire.Message, error) {
	port, err := servicePort(c.TestPort)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(c.Host, strconv.Itoa(port))
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, controlError{err}
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second)) // netperf waits 40 s and more for a calibration
	if _, err := conn.Write((&npwire.Message{Type: npwire.TypeCPUCalibrate}).Bytes()); err != nil {
		return nil, controlError{err}
	}
	return npwire.Read(conn)
}

// controlError is a control connection that could not be established.
type controlError struct{ err error }

func (e controlError) Error() string { return "dial " + e.err.Error() }

// dumpTCPInfo writes what netperf writes on stderr when DUMP_TCP_INFO is
// set in the environment (flent sets it and reads it): the data socket's
// TCP_INFO at the end of the test, netperf's words and spelling.
func (c *Command) dumpTCPInfo(stderr io.Writer, f *Figures) {
	if c.env("DUMP_TCP_INFO") == "" && c.Debug < 2 {
		return
	}
	ti := f.it.d.TCPInfo
	if ti == nil || !c.connected() {
		return
	}
	fmt.Fprintf(stderr, "tcpi_rto %d tcpi_ato %d tcpi_pmtu %d tcpi_rcv_ssthresh %d\n"+
		"tcpi_rtt %d tcpi_rttvar %d tcpi_snd_ssthresh %d tpci_snd_cwnd %d\n"+
		"tcpi_reordering %d tcpi_total_retrans %d\n",
		int32(ti.Rto), int32(ti.Ato), int32(ti.Pmtu), int32(ti.Rcv_ssthresh),
		int32(ti.Rtt), int32(ti.Rttvar), int32(ti.Snd_ssthresh), int32(ti.Snd_cwnd),
		int32(ti.Reordering), int32(ti.Total_retrans))
}
