// Package netperfcli reads netperf 2.7.1's command line, runs what it asks
// for on netscript's engine and prints what netperf prints: the banner, the
// classic tables of TCP_RR, TCP_CRR, UDP_RR, TCP_STREAM, TCP_MAERTS,
// UDP_STREAM and TCP_CC, the confidence warning, interim results and the
// -k/-o/-O output selectors. It also writes the Starlark script a command
// line amounts to (Script).
//
// Parsing follows netperf's rules (netsh.c, nettest_omni.c): "a,b" sets both
// values of a pair, "a," only the first, ",b" only the second, a single value
// both, except for the options netperf marks with * (-H, -L, -p, -D, -F),
// where a single value sets only the first. Sizes take K/M/G (1024ⁿ) and
// k/m/g (1000ⁿ) suffixes.
package netperfcli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// Netserver's control port, netperf's default for -p.
const NetserverPort = 12865

// Output modes of the test-specific -k, -o and -O options.
const (
	OutputClassic = 0   // netperf's table for the test
	OutputKeyval  = 'k' // NAME=value lines
	OutputCSV     = 'o' // a CSV header line and a value line
	OutputHuman   = 'O' // columns
)

// Command is one netperf command line, parsed.
type Command struct {
	Line string // the command line as given, for COMMAND_LINE and the script's comment

	Test     *spec.Workload
	Host     string // -H; "" for the embedded loopback server
	Port     int    // -p; 0: netserver's default
	Local    string // global -L: the local address, also the data source
	Family   sock.Family
	Duration time.Duration // -l N > 0
	Count    int64         // -l -N: transactions (RR) or bytes (streams)

	LocalCPU, RemoteCPU bool // -c, -C
	IterMax, IterMin    int  // -i max,min (1,1: no confidence loop)
	Level               int  // -I level: 95 or 99; 0 without -i/-I
	Width               float64
	ResultOnly          bool // -r
	Headers             bool // -P 1 (the default)
	Brand               string
	Demo                time.Duration // -D secs
	Verbosity           int
	CPU, RemoteCPUBind  *int    // -T lcpu,rcpu
	NoControl           bool    // -N
	Format              byte    // -f; 0: netperf's default for the test
	Rate                float64 // -w time -b n: operations per second

	// Test-specific options.
	Request, Response                  int
	SendSize, RecvSize                 int // -m, -M
	SendBuffer, RecvBuffer             int // -s
	RemoteSendBuffer, RemoteRecvBuffer int // -S
	Burst                              int
	NoDelay, FastOpen                  bool
	LocalPort, DataPort                int    // -P lport,rport
	DataLocal                          string // test-specific -L
	PortRange                          *spec.PortRange
	Output                             byte     // OutputClassic, OutputKeyval, ...
	Selectors                          []string // upper case; nil: netperf's default list
	ListSelectors                      bool     // -o '?'

	Help, TestHelp, Version bool // -h, -- -h, -V

	uuid string // the UUID selector's value, made when the test runs
}

// Error is a command line netperf would refuse: one line to print, and
// netperf's exit status. Usage asks for netperf's usage text after it.
type Error struct {
	Msg    string
	Status int
	Usage  bool
}

func (e *Error) Error() string { return e.Msg }

func bad(format string, args ...any) error {
	return &Error{Msg: "netperf: " + fmt.Sprintf(format, args...), Status: 1}
}

// refused is an option netperf has and netscript does not run.
func refused(opt, why string) error {
	return &Error{Msg: fmt.Sprintf("netperf: %s is not supported by netscript: %s", opt, why), Status: 1}
}

// globalArg says which global options take an argument (netperf's option
// string); the ones netscript refuses are listed too, so they are refused
// by name rather than called unknown.
var globalArg = map[byte]bool{
	'A': true, 'a': true, 'b': true, 'B': true, 'C': false, 'c': false, 'd': false, 'D': true,
	'f': true, 'F': true, 'H': true, 'h': false, 'i': true, 'I': true, 'j': false, 'k': true,
	'K': true, 'l': true, 'L': true, 'n': true, 'N': false, 'O': true, 'o': true, 'P': true,
	'p': true, 'r': false, 'S': false, 's': true, 't': true, 'T': true, 'v': true, 'V': false,
	'W': true, 'w': true, 'y': true, 'Y': true, 'Z': true, '4': false, '6': false,
}

// globalRefused explains the global options netscript does not run.
var globalRefused = map[byte]string{
	'A': "netscript does not align buffers", 'a': "netscript does not align buffers",
	'o': "netscript does not offset buffers", 'O': "netscript does not offset buffers",
	'W': "netscript sizes its own buffer rings", 'F': "netscript does not pre-fill buffers from files",
	'y': "netscript does not set SO_PRIORITY", 'Y': "netscript does not set IP_TOS",
	'Z': "netscript servers authenticate with a token (--token-file)", 'n': "netscript counts the CPUs itself",
	'k': "netscript has no dirty-buffer mode", 'K': "netscript has no dirty-buffer mode",
	's': "netscript starts every test at once after set-up", 'S': "netscript does not set SO_KEEPALIVE",
	'd': "netscript has no debug output; use --script to see what runs",
}

// testArg says which test-specific options take an argument.
var testArg = map[byte]bool{
	'r': true, 'm': true, 'M': true, 's': true, 'S': true, 'D': false, 'F': false, 'P': true,
	'L': true, 'b': true, 'p': true, 'h': false, '4': false, '6': false,
	'k': false, 'o': false, 'O': false, // their argument is optional
	// netperf's other omni options, refused by name (testRefused).
	'd': true, 'e': true, 'G': true, 'H': true, 'K': true, 'l': true, 'q': true, 'R': true,
	't': true, 'T': true, 'u': true, 'w': true, 'W': true,
	'a': false, 'B': false, 'c': false, 'C': false, 'f': false, 'g': false, 'I': false,
	'n': false, 'N': false, 'U': false, 'V': false,
}

// testRefused explains the test-specific options netscript does not run.
var testRefused = map[byte]string{
	'd': "the test's name sets its direction", 'T': "the test's name sets its protocol", 't': "the test's name sets its socket type",
	'c': "the test's name says whether it is a connection test", 'e': "UDP_RR counts a lost datagram after its own timeout",
	'G': "netscript does not set TCP_MAXSEG", 'H': "the data connection goes to the -H host",
	'K': "netscript uses the kernel's congestion control", 'l': "netscript does not send multicast",
	'q': "netscript does not set SO_MAX_PACING_RATE; pace with -w and -b", 'R': "netscript does not set SO_DONTROUTE",
	'u': "netscript makes the test's UUID itself", 'w': "netscript does not set the receive low water mark",
	'W': "netscript sizes its own buffer rings", 'a': "netscript does not set TCP_DEFER_ACCEPT",
	'B': "netscript does not set IP_PKTINFO", 'C': "netscript does not set TCP_CORK",
	'f': "netscript does not set IP_MTU_DISCOVER", 'g': "netscript does not set SO_DEBUG",
	'I': "netscript sends with send()", 'n': "netscript's UDP tests use connected sockets",
	'N': "netscript's UDP tests use connected sockets", 'U': "netscript walks to the next port on a failed connect",
	'V': "netscript does not use copy avoidance",
}

// Parse reads netperf's command line (without the program name).
func Parse(args []string) (*Command, error) {
	c := &Command{Line: "netperf " + strings.Join(args, " "), Headers: true, IterMax: 1, IterMin: 1, Verbosity: 1}
	testName := "TCP_STREAM"
	var global, test []string
	for i, a := range args {
		if a == "--" {
			global, test = args[:i], args[i+1:]
			break
		}
	}
	if global == nil && test == nil {
		global = args
	}
	var confI, confL bool
	var wait time.Duration
	burst := 0
	err := scan(global, globalArg, func(o byte, v string) error {
		if why, ok := globalRefused[o]; ok {
			return refused("-"+string(o), why)
		}
		var err error
		switch o {
		case 't':
			testName = strings.ToUpper(v)
		case 'H':
			h, fam := explicit(v)
			c.Host = h
			if fam != "" {
				c.Family, err = family(fam)
			}
		case 'L':
			l, fam := explicit(v)
			c.Local = l
			if fam != "" {
				c.Family, err = family(fam)
			}
		case 'p':
			p, lp := explicit(v)
			if p != "" {
				c.Port, err = port("-p", p)
			}
			if err == nil && lp != "" {
				err = refused("-p ,lport", "netscript lets the kernel choose the local control port")
			}
		case '4':
			c.Family = sock.Inet
		case '6':
			c.Family = sock.Inet6
		case 'l':
			n, perr := strconv.ParseInt(v, 10, 64)
			switch {
			case perr != nil:
				err = bad("invalid test length '%s': want seconds (> 0) or -count", v)
			case n > 0:
				c.Duration, err = spec.Seconds(float64(n))
				if err != nil {
					err = bad("-l %s: %v", v, err)
				}
			case n < 0:
				c.Count = -n
			default:
				err = refused("-l 0", "netscript runs no test without an end; give seconds or -count")
			}
		case 'c':
			c.LocalCPU = true
		case 'C':
			c.RemoteCPU = true
		case 'i':
			confI = true
			a, b := pair(v)
			if a != "" {
				c.IterMax, err = iterations(v, a)
			}
			if err == nil && b != "" {
				c.IterMin, err = iterations(v, b)
			}
		case 'I':
			confL = true
			a, b := pair(v)
			if a != "" {
				lvl, perr := strconv.Atoi(a)
				if perr != nil || (lvl != 95 && lvl != 99) {
					return &Error{Msg: "Only 95% and 99% confidence level is supported", Status: 255}
				}
				c.Level = lvl
			}
			if b != "" {
				w, perr := strconv.ParseFloat(b, 64)
				if perr != nil || !(w > 0) || w >= 100 {
					return bad("invalid confidence interval width '%s': want a percentage above 0", b)
				}
				c.Width = w
			}
		case 'r':
			c.ResultOnly = true
		case 'P':
			n, perr := strconv.Atoi(v)
			if perr != nil {
				return bad("invalid value '%s' for -P: want 0 or 1", v)
			}
			c.Headers = n != 0
		case 'B':
			c.Brand = v
		case 'D':
			secs, units := explicit(v)
			f, perr := strconv.ParseFloat(secs, 64)
			if perr != nil || !(f > 0) {
				return refused("-D "+v, "netscript takes interim samples at a positive interval in seconds, on its own clock")
			}
			_ = units // netperf's initial guess of units per interval; netscript reads the clock itself
			c.Demo, err = spec.Seconds(f)
		case 'j':
			// Latency statistics: netscript keeps them always.
		case 'v':
			n, perr := strconv.Atoi(v)
			if perr != nil {
				return bad("invalid verbosity '%s'", v)
			}
			if n > 1 {
				return refused("-v "+v, "netscript prints no histogram dump; -- -k p50_latency,p99_latency,... prints its percentiles")
			}
			c.Verbosity = n
		case 'T':
			a, b := pair(v)
			if a != "" {
				c.CPU, err = cpuNum(a)
			}
			if err == nil && b != "" {
				c.RemoteCPUBind, err = cpuNum(b)
			}
		case 'N':
			c.NoControl = true
		case 'f':
			if len(v) != 1 || !strings.Contains("GMKgmkx", v) {
				return refused("-f "+v, "netscript formats G, M, K, g, m, k (stream tests) and x (Trans/s)")
			}
			c.Format = v[0]
		case 'w':
			wait, err = waitTime(v)
		case 'b':
			a, _ := pair(v)
			burst, err = atoi("-b", a)
		case 'V':
			c.Version = true
		case 'h':
			c.Help = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if c.Help || c.Version {
		return c, nil
	}
	w, ok := lookupTest(testName)
	if !ok {
		return nil, &Error{Msg: fmt.Sprintf("The test you requested (%s) is unknown to this netperf.\n"+
			"Please verify that you have the correct test name, \nand that test family has been compiled into this netperf.", testName), Status: 1}
	}
	c.Test = w
	if confI || confL {
		if !confI {
			c.IterMax, c.IterMin = 10, 3
		}
		c.IterMax, c.IterMin = clamp(c.IterMax), clamp(c.IterMin)
		c.IterMax = max(c.IterMax, c.IterMin)
		if c.Level == 0 {
			c.Level = 99
		}
		if c.Width == 0 {
			c.Width = 5
		}
	}
	if wait > 0 || burst > 0 {
		if wait <= 0 || burst <= 0 {
			return nil, refused("-w/-b", "netscript paces by both: -w time -b operations per interval")
		}
		c.Rate = float64(burst) / wait.Seconds()
	}
	if err := c.parseTest(test); err != nil {
		return nil, err
	}
	return c, c.check()
}

// parseTest reads the options after "--".
func (c *Command) parseTest(args []string) error {
	return scan(args, testArg, func(o byte, v string) error {
		if why, ok := testRefused[o]; ok {
			return refused("-- -"+string(o), why)
		}
		var err error
		switch o {
		case 'r':
			err = sizes("-r", v, &c.Request, &c.Response)
		case 'm':
			a, b := pair(v)
			if a != "" {
				c.SendSize, err = size("-m", a)
			}
			if err == nil && b != "" && b != a {
				err = refused("-m ,rsend", "netscript sends with one size on whichever end sends")
			}
		case 'M':
			a, b := pair(v)
			if a != "" {
				c.RecvSize, err = size("-M", a)
			}
			if err == nil && b != "" && b != a {
				err = refused("-M ,lrecv", "netscript receives with one size on whichever end receives")
			}
		case 's':
			err = sizes("-s", v, &c.SendBuffer, &c.RecvBuffer)
		case 'S':
			err = sizes("-S", v, &c.RemoteSendBuffer, &c.RemoteRecvBuffer)
		case 'D':
			c.NoDelay = true
		case 'F':
			c.FastOpen = true
		case 'P':
			a, b := pair(v)
			if a != "" {
				c.LocalPort, err = port("-P", a)
			}
			if err == nil && b != "" {
				c.DataPort, err = port("-P", b)
			}
		case 'L':
			a, fam := explicit(v)
			if strings.Contains(a, "/") {
				return refused("-L addr/mask", "netscript binds one source address")
			}
			c.DataLocal = a
			if fam != "" {
				c.Family, err = family(fam)
			}
		case 'b':
			c.Burst, err = atoi("-b", v)
		case 'p':
			a, b := pair(v)
			lo, hi := 5000, 65535
			if a != "" {
				lo, err = port("-p", a)
			}
			if err == nil && b != "" {
				hi, err = port("-p", b)
			}
			c.PortRange = &spec.PortRange{Lo: lo, Hi: hi}
		case '4':
			c.Family = sock.Inet
		case '6':
			c.Family = sock.Inet6
		case 'h':
			c.TestHelp = true
		case 'k', 'o', 'O':
			c.Output = o
			c.Selectors = nil
			if v == "?" {
				c.ListSelectors = true
			} else if v != "" {
				if !strings.ContainsAny(v, ",;") && !knownSelector(strings.ToUpper(v)) {
					return refused("-"+string(o)+" "+v, "netscript reads no selector files; list the selectors with commas")
				}
				for _, s := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
					s = strings.ToUpper(strings.TrimSpace(s))
					if !knownSelector(s) {
						return bad("unknown output selector '%s' (netperf -- -o '?' lists them)", s)
					}
					c.Selectors = append(c.Selectors, s)
				}
			}
		}
		return err
	})
}

// scan walks getopt-style options: "-x", "-xVALUE", "-x VALUE"; the
// optional arguments of -k/-o/-O are the next word unless it starts with
// '-'.
func scan(args []string, takes map[byte]bool, set func(o byte, v string) error) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			return bad("unexpected argument '%s' (options start with '-'; test options follow '--')", a)
		}
		for j := 1; j < len(a); j++ {
			o := a[j]
			arg, known := takes[o]
			if !known {
				return &Error{Msg: fmt.Sprintf("netperf: invalid option -- '%c'", o), Status: 1, Usage: true}
			}
			optional := o == 'k' || o == 'o' || o == 'O'
			if !arg && !optional {
				if err := set(o, ""); err != nil {
					return err
				}
				continue
			}
			v := a[j+1:]
			if v == "" {
				switch {
				case optional && (i+1 >= len(args) || strings.HasPrefix(args[i+1], "-")):
				case i+1 < len(args):
					i++
					v = args[i]
				default:
					return &Error{Msg: fmt.Sprintf("netperf: option requires an argument -- '%c'", o), Status: 1, Usage: true}
				}
			}
			if err := set(o, v); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// pair splits netperf's "a,b": a single value sets both.
func pair(v string) (string, string) {
	if a, b, ok := strings.Cut(v, ","); ok {
		return a, b
	}
	return v, v
}

// explicit splits a * option's "a,b": a single value sets only the first.
func explicit(v string) (string, string) {
	a, b, _ := strings.Cut(v, ",")
	return a, b
}

// convert reads a size as netperf's convert() does: K/M/G are 1024ⁿ,
// k/m/g 1000ⁿ.
func convert(v string) (int64, bool) {
	mult := int64(1)
	if v != "" {
		switch v[len(v)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'k':
			mult = 1000
		case 'm':
			mult = 1000 * 1000
		case 'g':
			mult = 1000 * 1000 * 1000
		}
		if mult != 1 {
			v = v[:len(v)-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt32/mult {
		return 0, false
	}
	return n * mult, true
}

func size(opt, v string) (int, error) {
	n, ok := convert(v)
	if !ok || n < 1 {
		return 0, bad("invalid size '%s' for %s: want bytes, optionally with K, M, G (1024) or k, m, g (1000)", v, opt)
	}
	return int(n), nil
}

func sizes(opt, v string, a, b *int) error {
	x, y := pair(v)
	var err error
	if x != "" {
		if *a, err = size(opt, x); err != nil {
			return err
		}
	}
	if y != "" {
		*b, err = size(opt, y)
	}
	return err
}

func atoi(opt, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, bad("invalid value '%s' for %s: want a count", v, opt)
	}
	return n, nil
}

func port(opt, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		return 0, bad("invalid port '%s' for %s", v, opt)
	}
	return n, nil
}

func cpuNum(v string) (*int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return nil, bad("invalid CPU '%s' for -T", v)
	}
	return &n, nil
}

// iterations reads one value of -i; netperf clamps them to [3, 30], and
// netscript refuses what is not a positive count.
func iterations(whole, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, bad("invalid iteration count '%s' in -i %s: want max,min between 3 and 30", v, whole)
	}
	return n, nil
}

func clamp(n int) int { return min(max(n, 3), 30) }

// waitTime reads -w as netperf's convert_timespec: milliseconds by
// default, or with an m, u or s suffix.
func waitTime(v string) (time.Duration, error) {
	unit := time.Millisecond
	t := v
	switch {
	case strings.HasSuffix(t, "ms"):
		t = t[:len(t)-2]
	case strings.HasSuffix(t, "m"):
		t = t[:len(t)-1]
	case strings.HasSuffix(t, "us"):
		t, unit = t[:len(t)-2], time.Microsecond
	case strings.HasSuffix(t, "u"):
		t, unit = t[:len(t)-1], time.Microsecond
	case strings.HasSuffix(t, "s"):
		t, unit = t[:len(t)-1], time.Second
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 {
		return 0, bad("invalid interval '%s' for -w", v)
	}
	return time.Duration(n) * unit, nil
}

func family(v string) (sock.Family, error) {
	switch {
	case strings.Contains(v, "6"):
		return sock.Inet6, nil
	case strings.Contains(v, "inet"), strings.Contains(v, "4"):
		return sock.Inet, nil
	case strings.Contains(v, "unspec"), strings.Contains(v, "0"):
		return sock.Auto, nil
	}
	return sock.Auto, bad("'%s' is not an address family (want 4, 6, inet, inet6 or unspec)", v)
}

// lookupTest finds a workload by netperf's name.
func lookupTest(name string) (*spec.Workload, bool) {
	for _, w := range spec.Workloads() {
		if w.Netperf == name {
			return w, true
		}
	}
	return nil, false
}

// check refuses combinations netscript does not run, before any traffic.
func (c *Command) check() error {
	w := c.Test
	if c.Count > 0 && w.Datagram && !w.RR() {
		return refused("-l -count with UDP_STREAM", "a lost datagram would make the count unreachable; give a length in seconds")
	}
	if (c.Request > 0 || c.Response > 0) && !w.Accepts(spec.OptRequest) {
		return refused("-r", "it applies to request/response tests; "+w.Netperf+" has none")
	}
	if (c.SendSize > 0 || c.RecvSize > 0) && !w.Accepts(spec.OptSendSize) {
		return refused("-m/-M", "they apply to stream tests; "+w.Netperf+" has request and response sizes (-r)")
	}
	if c.Burst > 0 && !w.Accepts(spec.OptBurst) {
		return refused("-b", w.Netperf+" opens a connection per transaction, so it has one transaction in flight")
	}
	if c.FastOpen && !w.Accepts(spec.OptFastOpen) {
		return refused("-F", "TCP Fast Open applies to TCP_CRR, which opens a connection per transaction")
	}
	if c.NoDelay && w.Datagram {
		return refused("-D", "TCP_NODELAY applies to TCP tests")
	}
	if c.PortRange != nil && !w.Accepts(spec.OptLocalPorts) {
		return refused("-p min,max", "the client port range applies to tests that open a connection per transaction")
	}
	if c.Format != 0 && c.Format != 'x' && w.RR() {
		return refused("-f "+string(c.Format), "netscript reports request/response tests in Trans/s")
	}
	if c.Format == 'x' && !w.RR() {
		return refused("-f x", "stream tests are reported in bits or bytes per second")
	}
	if c.NoControl && c.DataPort == 0 {
		return refused("-N without -- -P ,port", "netscript does not aim at the discard, chargen or echo services; give the data port of a standing endpoint")
	}
	if c.NoControl && c.Host == "" {
		return refused("-N without -H", "a standing endpoint needs its host")
	}
	return nil
}
