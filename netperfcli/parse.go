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
	"strconv"
	"strings"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// NetserverPort is netserver's control port, netperf's default for -p.
const NetserverPort = spec.NetserverPort

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
	Selectors                          []string // upper case, "" between -O's blocks; nil: netperf's default list
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

// Error is the line to print.
func (e *Error) Error() string { return e.Msg }

func bad(format string, args ...any) error {
	return &Error{Msg: "netperf: " + fmt.Sprintf(format, args...), Status: 1}
}

// refused is an option netperf has and netscript does not run.
func refused(opt, why string) error {
	return &Error{Msg: fmt.Sprintf("netperf: %s is not supported by netscript: %s", opt, why), Status: 1}
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
			lvl, perr := strconv.Atoi(a)
			if perr != nil || (lvl != 95 && lvl != 99) {
				return &Error{Msg: "Only 95% and 99% confidence level is supported", Status: 255}
			}
			c.Level = lvl
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
			if n > 2 {
				return refused("-v "+v, "netscript prints netperf's output up to -v 2 (the histogram dump)")
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
	if !ok && otherTests[testName] {
		return nil, refused("-t "+testName, "netscript runs TCP_STREAM, TCP_MAERTS, TCP_RR, TCP_CRR, UDP_RR, UDP_STREAM and TCP_CC")
	}
	if !ok {
		return nil, &Error{Msg: fmt.Sprintf("The test you requested (%s) is unknown to this netperf.\n"+
			"Please verify that you have the correct test name, \nand that test family has been compiled into this netperf.", testName), Status: 1}
	}
	c.Test = w
	if c.Verbosity > 1 && !w.RR() {
		return nil, refused("-v 2 with "+testName, "netscript times no send() or recv() call of a stream test, so has no histogram of them; request/response tests print theirs")
	}
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
				// ';' starts a new block of -O's columns; "" marks it.
				for b, block := range strings.Split(v, ";") {
					if b > 0 {
						c.Selectors = append(c.Selectors, "")
					}
					for _, s := range strings.Split(block, ",") {
						s = strings.ToUpper(strings.TrimSpace(s))
						if s == "" {
							continue
						}
						if !knownSelector(s) {
							return bad("unknown output selector '%s' (netperf -- -o '?' lists them)", s)
						}
						c.Selectors = append(c.Selectors, s)
					}
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
