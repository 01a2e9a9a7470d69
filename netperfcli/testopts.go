package netperfcli

import (
	"io"
	"strings"
)

// Direction bits of an omni test (netperf's NETPERF_XMIT, NETPERF_RECV).
const (
	dirXmit = 0x2
	dirRecv = 0x4
)

// Transport protocols as netperf names them (IPPROTO_*).
const (
	protoTCP = 6
	protoUDP = 17
)

// TestOptions are the options after "--": netperf's omni test's (the
// migrated tests and -t omni, nettest_omni.c) or, for TCP_CC, the BSD
// sockets tests' (nettest_bsd.c), with netperf's defaults (-1: not set).
type TestOptions struct {
	Omni bool // read as the omni test's options (not TCP_CC's)

	Direction      int  // dirXmit | dirRecv, as the test name or -d sets it
	Connection     bool // a connection per transaction (TCP_CRR, TCP_CC, -c)
	Protocol       int  // protoTCP, protoUDP, or another IPPROTO_ number
	ProtocolName   string
	SocketType     string // "Stream", "Datagram": what SOCKET_TYPE prints, the test name's
	ReqSize        int    // -r req (-1: not set)
	RspSize        int    // -r ,rsp
	SendSize       int    // -m local (0: netperf's choice)
	RemoteSendSize int    // -m ,remote (-1: netserver's choice)
	RecvSize       int    // -M ,local (0: netperf's choice)
	RemoteRecvSize int    // -M remote (-1: netserver's choice)
	LSSReq, LSRReq int    // -s (-1: the system's)
	RSSReq, RSRReq int    // -S
	NoDelay        bool   // -D
	Cork           bool   // -C
	FastOpen       bool   // -F
	Burst          int    // -b
	LocalDataPort  string // -P local
	RemoteDataPort string // -P ,remote
	PortMin        int    // -p min (5000)
	PortMax        int    // -p ,max (65535)
	PortRange      bool   // -p given
	DataHost       string // -H: the data connection's far address ("": the control host)
	RemoteFamily   int    // -H ,fam, -4, -6: the data connection's far family
	LocalFamily    int    // -L ,fam, -4, -6: its local family
	DataLocal      string // -L: the data connection's source ("": the wildcard)
	LocalMaskLen   int    // -L addr/len
	RemoteMaskLen  int    // -H addr/len
	CongLocal      string // -K local
	CongRemote     string // -K ,remote
	MSSReq         int    // -G (-1: not set)
	ReceiveTimeout int    // -e secs (-1: none)
	PacingRate     int    // -q bytes/s (0: none)
	RoutingAllowed int    // -R (1; 0 for UDP_STREAM)
	HaveR          bool
	UUID           string // -u
	DontGiveUp     bool   // -U
	DeferAccept    bool   // -a
	Pktinfo        bool   // -B
	MTUDiscover    bool   // -f
	SocketDebug    bool   // -g
	UseWrite       bool   // -I
	Parallel       int    // -j
	MulticastTTL   int    // -l
	LocalConnected bool   // -n
	RemoteConn     bool   // -N
	CopyAvoid      bool   // -V
	AIO            bool   // TCP_CC's -a, -A

	Output    byte   // OutputClassic, OutputKeyval, OutputCSV, OutputHuman
	Selection string // the -k/-o/-O argument; "": the test's default list
	Legacy    bool   // a migrated test printing its classic table
	Help      bool   // -h: the test's usage, exit 1
	List      byte   // -k ? / -o ? (keyval or CSV names), -O ? (human): print the selectors, exit 1

	implicitDirection bool   // -t omni: -m, -M and -r set the direction
	sockType          string // -t's socket type
}

// omniOptions is netperf 2.7.1's OMNI_ARGS.
const omniOptions = "aBb:cCd:De:fFgG:hH:i:Ij:kK:l:L:m:M:nNoOp:P:q:r:R:s:S:t:T:u:UVw:W:46"

// socketsOptions is netperf 2.7.1's SOCKETS_ARGS (TCP_CC).
const socketsOptions = "aAb:CDnNhH:L:m:M:p:P:r:R:s:S:T:Vw:W:z46"

// migrated are the tests netperf 2.7.1 runs as omni tests under their
// classic names.
var migrated = map[string]bool{"TCP_STREAM": true, "TCP_MAERTS": true, "TCP_RR": true, "TCP_CRR": true, "UDP_STREAM": true, "UDP_RR": true}

// parseTest reads the options after "--" with the reader of the test's
// family, as netperf does whether or not there is a "--".
func (c *Command) parseTest(g *getopt, out, errOut io.Writer) error {
	t := &c.Test
	*t = TestOptions{ReqSize: -1, RspSize: -1, RemoteSendSize: -1, RemoteRecvSize: -1,
		LSSReq: -1, LSRReq: -1, RSSReq: -1, RSRReq: -1, LocalDataPort: "0", RemoteDataPort: "0",
		PortMin: 5000, PortMax: 65535, MSSReq: -1, ReceiveTimeout: -1, RoutingAllowed: 1,
		Protocol: protoTCP, SocketType: "Stream", Parallel: 1, MulticastTTL: -1}
	warn := func(s string) { io.WriteString(out, s) }
	switch {
	case migrated[c.TestName] || c.TestName == "OMNI" || c.TestName == "UUID":
		t.Omni = true
		c.omniDefaults()
		for o := g.opt(omniOptions); o != done; o = g.opt(omniOptions) {
			c.omniOption(g, o, warn)
			if t.Help || t.List != 0 {
				return nil
			}
		}
		c.omniFinish()
	case c.TestName == "TCP_CC" || c.TestName == "TCP_MSS":
		t.Connection = c.TestName == "TCP_CC"
		t.ReqSize, t.RspSize = 1, 1 // nettest_bsd.c's defaults
		for o := g.opt(socketsOptions); o != done; o = g.opt(socketsOptions) {
			c.socketsOption(o, g.optarg, warn)
			if t.Help {
				return nil
			}
		}
		if err := c.socketsFinish(errOut); err != nil {
			return err
		}
	}
	if t.Omni {
		// The omni test chooses by direction...
		c.chooseFormat(c.isRR())
	}
	// ... and netperf then by the test's name, for any test but omni.
	if c.TestName != "OMNI" {
		c.chooseFormat(strings.Contains(c.TestName, "RR"))
	}
	return nil
}

// chooseFormat settles -f: transactions for a request/response test and
// megabits otherwise when none was given, and -f x, which only a
// request/response test has, turned to megabits for another.
func (c *Command) chooseFormat(rr bool) {
	switch {
	case c.Format == '?' && rr:
		c.Format = 'x'
	case c.Format == '?', c.Format == 'x' && !rr:
		c.Format = 'm'
	}
}

// omniDefaults sets what the test's name implies (netperf's
// set_omni_defaults_by_legacy_testname).
func (c *Command) omniDefaults() {
	t := &c.Test
	t.Legacy = c.TestName != "OMNI"
	switch c.TestName {
	case "TCP_STREAM":
		t.Direction = dirXmit
	case "TCP_MAERTS":
		t.Direction = dirRecv
	case "TCP_RR":
		t.Direction, t.ReqSize, t.RspSize = dirXmit|dirRecv, 1, 1
	case "UDP_STREAM":
		t.Protocol, t.SocketType = protoUDP, "Datagram"
	case "UDP_RR":
		t.Protocol, t.SocketType = protoUDP, "Datagram"
		t.Direction, t.ReqSize, t.RspSize = dirXmit|dirRecv, 1, 1
	case "TCP_CRR":
		t.Direction, t.ReqSize, t.RspSize, t.Connection = dirXmit|dirRecv, 1, 1, true
	case "OMNI":
		t.implicitDirection = true
	}
}

// omniOption reads one option of the omni test (scan_omni_args).
func (c *Command) omniOption(g *getopt, o int, warn func(string)) {
	t := &c.Test
	v := g.optarg
	switch o {
	case '?', '4':
		t.RemoteFamily, t.LocalFamily = afInet, afInet
	case '6':
		t.RemoteFamily, t.LocalFamily = afInet6, afInet6
	case 'h':
		t.Help = true
	case 'a':
		t.DeferAccept = true
	case 'B':
		t.Pktinfo = true
	case 'b':
		t.Burst = atoi(v)
	case 'c':
		t.Connection = true
	case 'C':
		t.Cork = true
	case 'd':
		if !t.Legacy {
			t.Direction = parseDirection(v)
			t.implicitDirection = false
		}
	case 'D':
		t.NoDelay = true
	case 'f':
		t.MTUDiscover = true
	case 'F':
		t.FastOpen = true
	case 'e':
		t.ReceiveTimeout = atoi(v)
	case 'g':
		t.SocketDebug = true
	case 'G':
		t.MSSReq = atoi(v)
	case 'H':
		a, b := breakArgsExplicit(v)
		if a != "" {
			addr, mask := breakArgsSep(a, '/')
			if addr != "" {
				t.DataHost = addr
			}
			if mask != "" {
				t.RemoteMaskLen = convert(mask)
			}
		}
		if b != "" {
			t.RemoteFamily = parseFamily(b, warn)
		}
	case 'i':
		warn("The support for check_interval has been removed because the contributing editor no longer knew what it was for\n")
	case 'I':
		t.UseWrite = true
	case 'j':
		t.Parallel = atoi(v)
	case 'k', 'o', 'O':
		t.Output = byte(o)
		t.Legacy = false
		t.Selection = ""
		if n := g.peek(); n != "" && n[0] != '-' {
			g.take()
			t.Selection = n
			if n == "?" {
				t.List = byte(o)
			}
		}
	case 'K':
		a, b := breakArgs(v)
		if a != "" {
			t.CongLocal = trunc(a, 15)
		}
		if len(b) > 2 { // sic: netperf looks at the remote name's third letter
			t.CongRemote = trunc(b, 15)
		}
	case 'l':
		t.MulticastTTL = atoi(v)
	case 'L':
		a, b := breakArgsExplicit(v)
		if a != "" {
			addr, mask := breakArgsSep(a, '/')
			if addr != "" {
				t.DataLocal = addr
			}
			if mask != "" {
				t.LocalMaskLen = convert(mask)
			}
		}
		if b != "" {
			t.LocalFamily = parseFamily(b, warn)
		}
	case 'm':
		a, b := breakArgsExplicit(v)
		if a != "" {
			t.SendSize = convert(a)
			if t.implicitDirection {
				t.Direction |= dirXmit
			}
		}
		if b != "" {
			t.RemoteSendSize = convert(b)
			if t.implicitDirection {
				t.Direction |= dirRecv
			}
		}
	case 'M':
		a, b := breakArgsExplicit(v)
		if a != "" {
			t.RemoteRecvSize = convert(a)
			if t.implicitDirection {
				t.Direction |= dirXmit
			}
		}
		if b != "" {
			t.RecvSize = convert(b)
			if t.implicitDirection {
				t.Direction |= dirRecv
			}
		}
	case 'n':
		t.LocalConnected = true
	case 'N':
		t.RemoteConn = true
	case 'p':
		c.portRange(v)
	case 'P':
		a, b := breakArgs(v)
		if a != "" {
			t.LocalDataPort = a
		}
		if b != "" {
			t.RemoteDataPort = b
		}
	case 'q':
		t.PacingRate = atoi(v)
	case 'r':
		if t.implicitDirection {
			t.Direction |= dirXmit | dirRecv
		}
		a, b := breakArgs(v)
		setConvert(a, &t.ReqSize)
		setConvert(b, &t.RspSize)
	case 'R':
		t.RoutingAllowed, t.HaveR = atoi(v), true
	case 's':
		a, b := breakArgs(v)
		setConvert(a, &t.LSSReq)
		setConvert(b, &t.LSRReq)
	case 'S':
		a, b := breakArgs(v)
		setConvert(a, &t.RSSReq)
		setConvert(b, &t.RSRReq)
	case 't':
		// The socket type; what SOCKET_TYPE prints is the test name's
		// (netperf names it before reading the options, and not again).
		t.sockType = parseSocketType(v)
	case 'T':
		t.Protocol, t.ProtocolName = parseProtocol(v)
	case 'u':
		t.UUID = trunc(v, 37)
	case 'U':
		t.DontGiveUp = true
	case 'V':
		t.CopyAvoid = true
	case 'W':
		c.SendWidth = convert(v)
	case 'w':
		// In OMNI_ARGS but read by no case: netperf ignores it.
	}
}

// omniFinish completes the omni test's options as scan_omni_args does
// after reading them.
func (c *Command) omniFinish() {
	t := &c.Test
	if t.Direction == 0 && !t.Connection {
		t.Direction = dirXmit
	}
	if !t.HaveR && t.Protocol == protoUDP && !c.isRR() {
		t.RoutingAllowed = 0
	}
	if c.Verbosity > 1 {
		c.KeepHistogram = true
	}
	if c.isRR() && !c.isCC() {
		if t.ReqSize == -1 {
			t.ReqSize = 1
		}
		if t.RspSize == -1 {
			t.RspSize = 1
		}
	}
	if c.NoControl {
		c.noControlPorts(c.isRR() || c.isCC(), t.Direction == dirXmit, t.Direction == dirRecv)
	}
}

// portRange reads -p min,max (TCP_CRR's and TCP_CC's source ports).
func (c *Command) portRange(v string) {
	t := &c.Test
	a, b := breakArgs(v)
	if a != "" {
		t.PortMin = atoi(a)
	}
	if b != "" {
		t.PortMax = atoi(b)
	}
	t.PortRange = true
}

// noControlPorts is what -N changes: the far end's port defaults to the
// discard, chargen or echo service, and the far end's settings to none.
func (c *Command) noControlPorts(rr, xmit, recv bool) {
	t := &c.Test
	if t.RemoteDataPort == "0" {
		switch {
		case xmit:
			t.RemoteDataPort = "discard"
		case recv:
			t.RemoteDataPort = "chargen"
		case rr:
			t.RemoteDataPort = "echo"
			t.RspSize = t.ReqSize
		}
	}
	if xmit {
		t.RecvSize = -1
	}
	if recv {
		t.SendSize = -1
	}
	t.RSSReq, t.RSRReq = -1, -1
}

// isRR reports whether the test has transactions (both directions).
func (c *Command) isRR() bool { return c.Test.Direction&(dirXmit|dirRecv) == dirXmit|dirRecv }

// isCC reports whether the test is a connect/close one without data
// (TCP_CC, or -t omni -- -c without a direction).
func (c *Command) isCC() bool { return c.Test.Connection && c.Test.Direction&(dirXmit|dirRecv) == 0 }
