package netperfcli

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// Refusal is a command line netperf runs and netscript does not: it names
// what and says why, in one line.
type Refusal struct {
	What, Why string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("netperf: %s is not run by netscript: %s", r.What, r.Why)
}

// otherTests are netperf 2.7.1's tests that netscript does not run, with
// the reason.
var otherTests = map[string]string{
	"TCP_MSS":      "it runs no test that only reports the MSS; -t TCP_STREAM -- -k TRANSPORT_MSS reports it",
	"TCP_SENDFILE": "it sends with send(), not sendfile(); -t TCP_STREAM measures the same transfer",
}

// workload is the netscript test the command's test is: by the test's
// name for TCP_CC, else by what the omni options make of it (protocol,
// direction, a connection per transaction).
func (c *Command) workload() (*spec.Workload, error) {
	t := &c.Test
	if c.TestName == "TCP_CC" {
		return spec.TCPCC, nil
	}
	if why, ok := otherTests[c.TestName]; ok {
		return nil, &Refusal{"-t " + c.TestName, why}
	}
	if !t.Omni {
		return nil, &Error{Msg: fmt.Sprintf("The test you requested (%s) is unknown to this netperf.\n"+
			"Please verify that you have the correct test name, \n"+
			"and that test family has been compiled into this netperf.", c.TestName), Status: 1, Stdout: true}
	}
	what := fmt.Sprintf("-t %s with protocol %s, direction %s", c.TestName, c.protocolName(), c.directionName())
	rr := c.isRR()
	switch {
	case t.Protocol != protoTCP && t.Protocol != protoUDP:
		return nil, &Refusal{what, "it runs TCP and UDP tests"}
	case t.Protocol == protoTCP && t.Connection && rr:
		return spec.TCPCRR, nil
	case t.Protocol == protoTCP && c.isCC():
		return spec.TCPCC, nil
	case t.Connection:
		return nil, &Refusal{what + " and a connection per transaction", "its connection tests are TCP_CRR (a request and a response) and TCP_CC (none)"}
	case rr && t.Protocol == protoTCP:
		return spec.TCPRR, nil
	case rr:
		return spec.UDPRR, nil
	case t.Direction == dirXmit && t.Protocol == protoTCP:
		return spec.TCPStream, nil
	case t.Direction == dirXmit:
		return spec.UDPStream, nil
	case t.Direction == dirRecv && t.Protocol == protoTCP:
		return spec.TCPMaerts, nil
	}
	return nil, &Refusal{what, "it runs no UDP test where netserver sends the stream (UDP_MAERTS)"}
}

// netserverWait is how long netperf waits for each answer of netserver's
// (recv_response's two minutes), which a loaded netserver may need.
const netserverWait = 120 * time.Second

// embedded reports whether the test runs against netscript's embedded
// loopback server: no -H was given (netperf's localhost), and the test
// has a control connection.
func (c *Command) embedded() bool { return c.hostDefaulted && !c.NoControl }

// dataFamily is the data connection's address family: the test's -4, -6
// or -H ,fam, else the control connection's (the global -4, -6, -H ,fam).
func (c *Command) dataFamily() int {
	if c.Test.RemoteFamily != afUnspec {
		return c.Test.RemoteFamily
	}
	return c.Family
}

// Spec is the test one iteration of c runs: against the embedded
// loopback server when no -H was given, else against a netserver (or a
// netscript daemon's --netperf-listen) at -H and -p, or with -N straight
// to the data port there.
func (c *Command) Spec() (spec.Spec, error) {
	w, err := c.workload()
	if err != nil {
		return spec.Spec{}, err
	}
	t := &c.Test
	s := spec.Default(w)
	switch c.dataFamily() {
	case afInet:
		s.Family = sock.Inet
	case afInet6:
		s.Family = sock.Inet6
	}
	if !c.embedded() {
		s.Host = c.Host
		if c.NoControl && t.DataHost != "" {
			s.Host = t.DataHost
		}
		s.Port, err = servicePort(c.TestPort)
		if err != nil {
			return s, err
		}
		if !c.NoControl {
			s.Server = spec.ServerNetserver
			s.ConnectTimeout = netserverWait
		}
	}
	c.specLength(&s)
	if w.Messages {
		if t.ReqSize == 0 || t.RspSize == 0 {
			return s, &Refusal{"-- -r with an empty request or response", "netperf then sends nothing and completes no transaction; " +
				"netscript's request/response tests carry at least a byte each way"}
		}
		if t.ReqSize > 0 {
			s.Request = t.ReqSize
		}
		if t.RspSize > 0 {
			s.Response = t.RspSize
		}
	}
	c.specSizes(&s)
	s.NoDelay = t.NoDelay && !w.Datagram
	s.FastOpen = t.FastOpen && w.Accepts(spec.OptFastOpen)
	if w.Accepts(spec.OptBurst) {
		s.Burst = max(t.Burst, 0)
	}
	s.Local = c.dataLocal()
	s.LocalPort = atoi(t.LocalDataPort)
	s.DataPort, err = servicePort(t.RemoteDataPort)
	if err != nil {
		return s, err
	}
	if t.PortRange && w.Accepts(spec.OptLocalPorts) {
		s.LocalPortRange = &spec.PortRange{Lo: t.PortMin, Hi: t.PortMax}
	}
	if c.Brand != nil {
		s.Brand = *c.Brand
	}
	s.CPUUtil = c.LocalCPU || c.RemoteCPU
	if c.LocalAffinity >= 0 {
		n := c.LocalAffinity
		s.CPU = &n
	}
	if c.RemoteAffinity >= 0 && !c.NoControl {
		n := c.RemoteAffinity
		s.RemoteCPU = &n
	}
	if c.DemoMode > 0 {
		s.Interval = c.demoInterval()
		if s.Duration > 0 && s.Interval > s.Duration {
			s.Interval = s.Duration // the whole test is one interval then
		}
	}
	if c.IntervalBurst > 0 && c.IntervalUsecs >= 1000 {
		// netperf's -w/-b: burst operations, then a wait for the next tick
		// of its interval timer (whole milliseconds).
		s.Rate = float64(c.IntervalBurst) / (float64(c.IntervalUsecs/1000) / 1e3)
	}
	if t.ReceiveTimeout > 0 && w.Accepts(spec.OptTimeout) {
		s.Timeout = time.Duration(t.ReceiveTimeout) * time.Second
	}
	s.NoControl = c.NoControl
	if !s.Netserver() {
		c.knobs(&s, &s.Knobs) // against a netserver, NetperfRequest carries them
	}
	return s, s.Validate()
}

// specLength sets the test's end: -l seconds, or a count of transactions
// (request/response tests) or bytes (streams); -l 0 runs until the test
// is interrupted, as netperf's does.
func (c *Command) specLength(s *spec.Spec) {
	switch {
	case c.TestTime > 0:
		s.Duration = c.Duration()
	case c.TestUnits > 0 && s.Workload.RR():
		s.Duration, s.Transactions = 0, uint64(c.TestUnits)
	case c.TestUnits > 0:
		s.Duration, s.Bytes = 0, uint64(c.TestUnits)
	default:
		s.Duration = spec.MaxDuration
	}
}

// specSizes sets the socket buffers and the stream tests' send and
// receive sizes. netperf asks for a buffer of 0 bytes (-s 0), which the
// kernel raises to its minimum; netscript asks for 1 byte, which it
// raises to the same, as a spec's 0 is "the system's default".
func (c *Command) specSizes(s *spec.Spec) {
	t := &c.Test
	buf := func(n int) int {
		if n < 0 {
			return 0
		}
		return max(n, 1)
	}
	s.SendBuffer, s.RecvBuffer = buf(t.LSSReq), buf(t.LSRReq)
	s.RemoteSendBuffer, s.RemoteRecvBuffer = buf(t.RSSReq), buf(t.RSRReq)
	w := s.Workload
	if !w.Bulk {
		return
	}
	if w.ServerSends {
		s.SendSize, s.RecvSize = max(t.RemoteSendSize, 0), max(t.RecvSize, 0)
	} else {
		s.SendSize, s.RecvSize = max(t.SendSize, 0), max(t.RemoteRecvSize, 0)
	}
}

// knobs are the socket options of the data connection that netperf sets
// on this end: its congestion control (-K), TOS (-Y, when above 0),
// TCP_CORK (-C), TCP_MAXSEG (-G) and SO_MAX_PACING_RATE (-q). The embedded
// server sets the same on its end.
func (c *Command) knobs(s *spec.Spec, k *sock.Knobs) {
	t := &c.Test
	w := s.Workload
	if t.CongLocal != "" && !w.Datagram {
		k.Congestion = t.CongLocal
	}
	if c.LocalTOS > 0 {
		k.TOS, k.HasTOS = c.LocalTOS, true
	}
	if t.Cork && w.TakesKnob(spec.OptCork) {
		k.Cork = true
	}
	if t.MSSReq != -1 && !w.Datagram && t.MSSReq >= spec.MinMSS && t.MSSReq <= spec.MaxMSS {
		k.MSS = t.MSSReq
	}
	if t.PacingRate > 0 {
		k.MaxPacingRate = uint64(t.PacingRate) * 8
	}
	if w.TakesKnob(spec.OptTCPInfo) && c.selects("TRANSPORT_MSS") {
		// netperf reads the MSS of the first of a connection test's
		// connections; netscript reads each one's TCP_INFO then.
		k.TCPInfo = true
	}
}

// demoInterval is -D's interval (one second when -D gives none).
func (c *Command) demoInterval() time.Duration {
	us := c.DemoInterval
	if us <= 0 {
		us = 1e6
	}
	return time.Duration(us * float64(time.Microsecond))
}

// dataLocal is the data connection's source address: the test's -L, else
// the global -L; "" for the wildcard.
func (c *Command) dataLocal() string {
	l := c.Test.DataLocal
	if l == "" {
		l = c.LocalHost
	}
	if l == "0.0.0.0" || l == "::0" || l == "::" {
		return ""
	}
	return l
}

// servicePort reads a port as netperf's getaddrinfo does: a number, or
// one of the services netperf names itself (discard, chargen, echo).
func servicePort(v string) (int, error) {
	switch v {
	case "discard":
		return 9, nil
	case "chargen":
		return 19, nil
	case "echo":
		return 7, nil
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= 65535 {
		return n, nil
	}
	if n, err := net.LookupPort("tcp", v); err == nil {
		return n, nil
	}
	return 0, &Error{Msg: fmt.Sprintf("netperf: port '%s' is no number and no service this machine knows", v), Status: 1}
}
