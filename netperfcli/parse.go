// Package netperfcli reads netperf 2.7.1's command line, runs what it asks
// for on netscript's engine and prints what netperf prints: the banner, the
// classic tables of the migrated tests (TCP_STREAM, TCP_MAERTS, TCP_RR,
// TCP_CRR, UDP_RR, UDP_STREAM) and of TCP_CC, the omni test's columns,
// the confidence warning, interim results and every -k/-o/-O output
// selector. It also writes the Starlark script a command line amounts to
// (Script).
//
// Parsing follows netperf's own (netsh.c for the global options,
// nettest_omni.c for the omni and migrated tests' options, nettest_bsd.c
// for TCP_CC's): getopt's clusters and messages, "a,b" pairs, convert()'s
// K/M/G (1024ⁿ) and k/m/g (1000ⁿ) suffixes, and a value that is no number
// reading as 0, as netperf reads it.
package netperfcli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"netscript/engine/npwire"
)

// NetserverPort is netserver's control port, netperf's default for -p.
const NetserverPort = 12865

// Output modes of the test-specific -k, -o and -O options.
const (
	OutputClassic = 0   // netperf's table for the test (a migrated test without -k/-o/-O)
	OutputKeyval  = 'k' // NAME=value lines
	OutputCSV     = 'o' // a CSV header line and a value line
	OutputHuman   = 'O' // columns
)

// Command is one netperf command line, parsed: netperf's global and test
// variables, with netperf's defaults and netperf's -1 for "not set".
type Command struct {
	Prog string // the program's name as invoked, for getopt's messages
	Line string // the command line, netperf's COMMAND_LINE

	// Global options (netsh.c).
	TestName            string // -t, upper case
	Host                string // -H: "" for none given
	Family              int    // -H ,fam, -4, -6: afUnspec, afInet, afInet6
	LocalHost           string // -L: the control connection's source
	LocalFamily         int
	TestPort            string // -p: netserver's port, "12865"
	LocalTestPort       string // -p ,lport: the control connection's source port
	TestTime            int    // -l N > 0: seconds (10 by default)
	TestUnits           int    // -l -N: transactions (RR) or bytes (streams)
	LocalCPU, RemoteCPU bool   // -c, -C
	LocalCPURate        float64
	RemoteCPURate       float64
	Debug               int     // -d
	DemoMode            int     // -D: 1, or 2 for a negative interval
	DemoInterval        float64 // -D secs, in µs
	DemoUnits           int     // -D ,units
	Format              byte    // -f; '?' until the test's default is chosen
	LocalFill           string  // -F lfill
	RemoteFill          string  // -F ,rfill
	IterMax, IterMin    int     // -i max,min (1,1: no confidence loop)
	Level               int     // -I level (0: none asked)
	Interval            float64 // -I ,width as a fraction (0.05 is 5 %)
	ResultOnly          bool    // -r
	KeepHistogram       bool    // -j
	ShellNumCPUs        int     // -n
	NoControl           bool    // -N
	PrintHeaders        int     // -P (1 by default)
	Brand               *string // -B; nil when not given
	WaitSecs            int     // -s
	KeepAlive           bool    // -S
	LocalAffinity       int     // -T lcpu (-1: none)
	RemoteAffinity      int     // -T ,rcpu (-1: none)
	CPUBinding          bool    // -T given
	Verbosity           int     // -v
	SendAlign           int     // -a send
	RecvAlign           int     // -a ,recv
	RemoteSendAlign     int     // -A
	RemoteRecvAlign     int
	SendOffset          int // -o
	RecvOffset          int
	RemoteSendOffset    int // -O
	RemoteRecvOffset    int
	SendWidth           int // -W send (0: netperf's choice)
	RecvWidth           int
	LocalPrio           int // -y (-1: not set)
	RemotePrio          int
	LocalTOS            int // -Y (-1: not set)
	RemoteTOS           int
	Passphrase          *string // -Z
	IntervalUsecs       int     // -w
	IntervalBurst       int     // -b
	RemoteIntervalUsecs int     // -w ,remote
	RemoteIntervalBurst int     // -b ,remote

	Test TestOptions // the options after "--"

	Help, Version bool // -h, -V: print and exit

	// hostDefaulted: no -H was given, so netperf's localhost is the far
	// end, which netscript serves with its embedded server.
	hostDefaulted bool

	// Getenv reads the environment (DUMP_TCP_INFO); os.Getenv if nil.
	Getenv func(string) string

	uuid   string    // the UUID selector's value
	stdout io.Writer // where parsing prints what netperf prints on stdout (-k dirty warnings)
}

// Error is a command line netperf would stop at: what to print on which
// stream, and netperf's exit status. Usage asks for netperf's usage text
// after it (on the error stream).
type Error struct {
	Msg    string
	Status int
	Usage  bool
	Stdout bool // netperf prints it on stdout (printf), not stderr
}

// Error is the message.
func (e *Error) Error() string { return e.Msg }

// globalOptions is netperf 2.7.1's GLOBAL_CMD_LINE_ARGS.
const globalOptions = "A:a:b:B:CcdD:f:F:H:hi:I:jk:K:l:L:n:NO:o:P:p:rSs:t:T:v:VW:w:y:Y:Z:46"

// Parse reads netperf's command line (without the program's name) as
// netperf does; prog is the program's name for getopt's messages. What
// netperf prints while it reads a line and goes on (getopt's complaints
// about a test option, a family it does not know) goes to errOut, and
// what it prints on stdout (-k without dirty buffers) to out.
func Parse(prog string, args []string, out, errOut io.Writer) (*Command, error) {
	c := &Command{
		Prog: prog, Line: strings.Join(append([]string{prog}, args...), " "),
		TestName: "TCP_STREAM", TestPort: "12865", LocalTestPort: "0", TestTime: 10,
		Format: '?', IterMax: 1, IterMin: 1, PrintHeaders: 1, Verbosity: 1,
		LocalAffinity: -1, RemoteAffinity: -1, SendAlign: 8, RecvAlign: 8, RemoteSendAlign: 8, RemoteRecvAlign: 8,
		LocalPrio: -1, RemotePrio: -1, LocalTOS: -1, RemoteTOS: -1, ShellNumCPUs: 1,
		stdout: out,
	}
	g := newGetopt(prog, args, errOut)
	warn := func(s string) { io.WriteString(out, s) }
	for {
		o := g.opt(globalOptions)
		if o == done {
			break
		}
		if err := c.global(g, o, warn); err != nil {
			return nil, err
		}
		if c.Help || c.Version {
			return c, nil
		}
	}
	c.defaultHosts()
	if c.NoControl {
		c.RemotePrio, c.RemoteTOS = -1, -1
		c.RemoteRecvAlign, c.RemoteSendAlign = -1, -1
		c.RemoteSendOffset, c.RemoteRecvOffset = -1, -1
		c.RemoteCPURate, c.RemoteCPU = -1, false
	}
	if err := c.parseTest(g, out, errOut); err != nil {
		return nil, err
	}
	return c, nil
}

// global reads one global option (netsh.c's scan_cmd_line).
func (c *Command) global(g *getopt, o int, warn func(string)) error {
	v := g.optarg
	switch o {
	case '?', 'h':
		c.Help = true
		if o == '?' {
			return &Error{Status: 1, Usage: true}
		}
	case 'a':
		a, b := breakArgs(v)
		setConvert(a, &c.SendAlign)
		setConvert(b, &c.RecvAlign)
	case 'A':
		a, b := breakArgs(v)
		setConvert(a, &c.RemoteSendAlign)
		setConvert(b, &c.RemoteRecvAlign)
	case 'c', 'C':
		// An optional CPU rate follows when the next word starts with a
		// digit.
		rate := 0.0
		if n := g.peek(); n != "" && n[0] >= '0' && n[0] <= '9' {
			rate = atof(n)
			g.take()
		}
		if o == 'c' {
			c.LocalCPU, c.LocalCPURate = true, rate
		} else {
			c.RemoteCPU, c.RemoteCPURate = true, rate
		}
	case 'd':
		c.Debug++
	case 'D':
		c.DemoMode = 1
		a, b := breakArgsExplicit(v)
		if a != "" {
			c.DemoInterval = atof(a) * 1e6
			if c.DemoInterval < 0 {
				c.DemoInterval, c.DemoMode = -c.DemoInterval, 2
			}
		}
		if b != "" {
			c.DemoUnits = convert(b)
		}
	case 'f':
		if v != "" {
			c.Format = v[0]
		}
	case 'F':
		a, b := breakArgsExplicit(v)
		if a != "" {
			c.LocalFill = a
		}
		if b != "" {
			if len(b) > 31 {
				return &Error{Msg: "Remote fill file name must be less than 32 characters", Status: 255}
			}
			c.RemoteFill = b
		}
	case 'i':
		a, b := breakArgs(v)
		setConvert(a, &c.IterMax)
		setConvert(b, &c.IterMin)
		c.IterMax = max(c.IterMax, c.IterMin)
		c.IterMax, c.IterMin = min(max(c.IterMax, 3), 30), min(max(c.IterMin, 3), 30)
		if c.Level == 0 {
			c.Level = 99
		}
		if c.Interval == 0 {
			c.Interval = 0.05
		}
	case 'I':
		a, b := breakArgs(v)
		setConvert(a, &c.Level)
		if c.Level != 95 && c.Level != 99 {
			return &Error{Msg: "Only 95% and 99% confidence level is supported", Status: 255, Stdout: true}
		}
		if b != "" {
			c.Interval = atof(b) / 100
		}
		if c.IterMin == 1 {
			c.IterMin = 3
		}
		if c.IterMax == 1 {
			c.IterMax = 10
		}
		if c.Interval == 0 {
			c.Interval = 0.05
		}
	case 'j':
		c.KeepHistogram = true
	case 'k', 'K':
		// netperf 2.7.1 as built has no dirty-buffer support: it says so
		// and goes on.
		warn("I don't know how to get dirty.\n")
	case 'n':
		c.ShellNumCPUs = atoi(v)
	case 'N':
		c.NoControl = true
	case 'o':
		a, b := breakArgs(v)
		setConvert(a, &c.SendOffset)
		setConvert(b, &c.RecvOffset)
	case 'O':
		a, b := breakArgs(v)
		setConvert(a, &c.RemoteSendOffset)
		setConvert(b, &c.RemoteRecvOffset)
	case 'P':
		c.PrintHeaders = convert(v)
	case 'r':
		c.ResultOnly = true
	case 'S':
		c.KeepAlive = true
	case 's':
		c.WaitSecs = convert(v)
	case 't':
		name := v
		if len(name) > 8191 {
			name = name[:8191]
		}
		c.TestName = strings.ToUpper(name)
	case 'T':
		a, b := breakArgs(v)
		if a != "" {
			c.LocalAffinity = convert(a)
		}
		if b != "" {
			c.RemoteAffinity = convert(b)
		}
		c.CPUBinding = true
	case 'W':
		a, b := breakArgs(v)
		setConvert(a, &c.SendWidth)
		setConvert(b, &c.RecvWidth)
	case 'y':
		a, b := breakArgs(v)
		setConvert(a, &c.LocalPrio)
		setConvert(b, &c.RemotePrio)
	case 'Y':
		a, b := breakArgs(v)
		if a != "" {
			c.LocalTOS = parseIPQoS(a)
		}
		if b != "" {
			c.RemoteTOS = parseIPQoS(b)
		}
	case 'Z':
		p := v
		if len(p) > npwire.PassphraseLen-1 {
			p = p[:npwire.PassphraseLen-1] // what fits in a control message's body
		}
		c.Passphrase = &p
	case 'l':
		c.TestTime, c.TestUnits = convert(v), 0
		if c.TestTime < 0 {
			c.TestUnits, c.TestTime = -c.TestTime, 0
		}
	case 'v':
		c.Verbosity = convert(v)
	case 'p':
		a, b := breakArgsExplicit(v)
		if a != "" {
			c.TestPort = a
		}
		if b != "" {
			c.LocalTestPort = b
		}
	case 'H':
		a, b := breakArgsExplicit(v)
		if a != "" {
			c.Host = a
		}
		if b != "" {
			c.Family = parseFamily(b, warn)
		}
	case 'L':
		a, b := breakArgsExplicit(v)
		if a != "" {
			c.LocalHost = a
		}
		if b != "" {
			c.LocalFamily = parseFamily(b, warn)
		}
	case 'w':
		a, b := breakArgsExplicit(v)
		if a != "" {
			c.IntervalUsecs = convertTimespec(a)
		}
		if b != "" {
			c.RemoteIntervalUsecs = convertTimespec(b)
		}
	case 'b':
		a, b := breakArgsExplicit(v)
		if a != "" {
			c.IntervalBurst = convert(a)
			if c.IntervalUsecs == 0 {
				c.IntervalUsecs = 1000
			}
		}
		if b != "" {
			c.RemoteIntervalBurst = convert(b)
			if c.RemoteIntervalUsecs == 0 {
				c.RemoteIntervalUsecs = 1000
			}
		}
	case 'B':
		b := v
		c.Brand = &b
	case '4':
		c.Family, c.LocalFamily = afInet, afInet
	case '6':
		c.Family, c.LocalFamily = afInet6, afInet6
	case 'V':
		c.Version = true
	}
	return nil
}

// setConvert sets *p to convert(v) when v is given.
func setConvert(v string, p *int) {
	if v != "" {
		*p = convert(v)
	}
}

// defaultHosts names the far end and this end as netperf does when -H or
// -L is not given: localhost (::1 for IPv6) and the wildcard address.
func (c *Command) defaultHosts() {
	if c.Host == "" {
		c.hostDefaulted = true
		if c.Family == afInet6 || c.Family == afUnspec && c.LocalFamily == afInet6 {
			c.Host = "::1"
		} else {
			c.Host = "localhost"
		}
	}
	if c.LocalHost == "" {
		// netperf resolves -H first: an IPv6 far end makes the wildcard
		// IPv6's.
		fam := c.Family
		if fam == afUnspec && strings.Contains(c.Host, ":") {
			fam = afInet6
		}
		if c.LocalFamily == afInet6 || c.LocalFamily == afUnspec && fam == afInet6 {
			c.LocalHost = "::0"
		} else {
			c.LocalHost = "0.0.0.0"
		}
	}
}

// Duration is the test's length (-l N > 0); 0 for a count or -l 0.
func (c *Command) Duration() time.Duration { return time.Duration(c.TestTime) * time.Second }

// env is the environment variable key.
func (c *Command) env(key string) string {
	if c.Getenv != nil {
		return c.Getenv(key)
	}
	return os.Getenv(key)
}

func (c *Command) String() string { return fmt.Sprintf("netperf command %q", c.Line) }
