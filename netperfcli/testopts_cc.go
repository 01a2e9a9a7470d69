package netperfcli

import "io"

// socketsOption reads one option of the BSD sockets tests
// (scan_sockets_args), TCP_CC's.
func (c *Command) socketsOption(o int, v string, warn func(string)) {
	t := &c.Test
	switch o {
	case '?', '4':
		t.RemoteFamily, t.LocalFamily = afInet, afInet
	case '6':
		t.RemoteFamily, t.LocalFamily = afInet6, afInet6
	case 'h':
		t.Help = true
	case 'a', 'A':
		warn("Asynchronous I/O not available on this platform\n")
	case 'b':
		t.Burst = atoi(v)
	case 'C':
		t.Cork = true
	case 'D':
		t.NoDelay = true
	case 'H':
		a, b := breakArgsExplicit(v)
		if a != "" {
			t.DataHost = a
		}
		if b != "" {
			t.RemoteFamily = parseFamily(b, warn)
		}
	case 'L':
		a, b := breakArgsExplicit(v)
		if a != "" {
			t.DataLocal = a
		}
		if b != "" {
			t.LocalFamily = parseFamily(b, warn)
		}
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
	case 'R':
		t.RoutingAllowed, t.HaveR = atoi(v), true
	case 'm':
		t.SendSize = convert(v)
	case 'M':
		t.RecvSize = convert(v)
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
	case 'W':
		c.SendWidth = convert(v)
	case 'V':
		warn("Local send copy avoidance not available.\nLocal recv copy avoidance not available.\n")
		t.CopyAvoid = true
	}
}

// socketsFinish completes TCP_CC's options as scan_sockets_args does.
func (c *Command) socketsFinish(errOut io.Writer) error {
	t := &c.Test
	if t.Burst > 0 && c.Verbosity >= 2 {
		io.WriteString(errOut, "WARNING! Histograms and first bursts are incompatible!\n")
	}
	if c.NoControl {
		if t.RemoteDataPort == "0" {
			return &Error{Msg: "No default port known for the " + c.TestName + " test, please set one yourself", Status: 255, Stdout: true}
		}
		t.RSSReq, t.RSRReq = -1, -1
	}
	return nil
}
