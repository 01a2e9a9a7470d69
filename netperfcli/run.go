package netperfcli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/stats"
	"netscript/session"
)

// Main is `netscript netperf ARGS...` and the binary run as netperf: it
// parses args, prints the script with --script (before the netperf
// options), runs the test on the engine otherwise, and returns netperf's
// exit status. version is netscript's, for -V.
func Main(ctx context.Context, args []string, sess *session.Session, version string, stdout, stderr io.Writer) int {
	script := false
	if len(args) > 0 && args[0] == "--script" {
		script, args = true, args[1:]
	}
	c, err := Parse(args)
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			e = &Error{Msg: "netperf: " + err.Error(), Status: 1}
		}
		fmt.Fprintln(stderr, e.Msg)
		if e.Usage {
			fmt.Fprint(stderr, Usage())
		}
		return e.Status
	}
	switch {
	case c.Help:
		fmt.Fprint(stdout, Usage())
		return 1 // as netperf -h
	case c.Version:
		fmt.Fprintf(stdout, "Netperf version 2.7.1\n(netscript %s: netperf's command line on netscript's engine)\n", version)
		return 0
	case c.TestHelp:
		fmt.Fprint(stdout, TestUsage())
		return 1
	case c.ListSelectors:
		fmt.Fprint(stdout, ListSelectorsText())
		return 0
	}
	if _, err := c.Spec(); err != nil {
		fmt.Fprintf(stderr, "netperf: %v\n", err)
		return 1
	}
	if script {
		fmt.Fprint(stdout, c.Script())
		return 0
	}
	return c.Run(ctx, sess, stdout, stderr)
}

// Run runs the command's iterations through the session and prints
// netperf's output.
func (c *Command) Run(ctx context.Context, sess *session.Session, stdout, stderr io.Writer) int {
	s, err := c.Spec()
	if err != nil {
		fmt.Fprintf(stderr, "netperf: %v\n", err)
		return 1
	}
	c.uuid = newUUID()
	var opt session.RunOptions
	// With no host the session runs the test against its embedded
	// server; started here, a server that cannot start is reported before
	// anything is printed.
	embedded := s.Host == "" && !s.NoControl
	if embedded {
		if _, err := sess.Embedded(s.Family); err != nil {
			fmt.Fprintf(stderr, "netperf: %v\n", err)
			return 1
		}
	}
	// The banner comes once the far end answered, as netperf prints it
	// after it has its control connection: before the first interim
	// result or after the first iteration.
	var mu sync.Mutex
	var banner sync.Once
	printBanner := func() {
		banner.Do(func() {
			if c.Headers {
				c.Banner(stdout)
			}
		})
	}
	if c.Demo > 0 {
		n := 0
		opt.Interim = func(in client.Interim) {
			mu.Lock()
			defer mu.Unlock()
			printBanner()
			c.Interim(stdout, n, c.scaleRate(in.Throughput), in.Interval, in.Ending)
			n++
		}
	}
	var rs []*result.Result
	interrupted := false
	iterate := func(int) ([]float64, error) {
		if interrupted {
			return nil, errInterrupted
		}
		r, err := sess.Run(ctx, s, opt)
		var te *client.TestError
		if err != nil && ctx.Err() != nil && errors.As(err, &te) && te.Partial != nil && te.Partial.Elapsed > 0 {
			// Interrupted: netperf reports what it measured until then.
			r, err, interrupted = te.Partial, nil, true
		}
		if err != nil {
			return nil, err
		}
		mu.Lock()
		printBanner()
		mu.Unlock()
		rs = append(rs, r)
		// The stopping rule watches the CPU figures asked for too, unless
		// -r; one not measured counts as 0, which never blocks it.
		vals := []float64{c.scale(r), 0, 0}
		if !c.ResultOnly && c.LocalCPU && r.LocalCPU != nil {
			vals[1] = *r.LocalCPU
		}
		if !c.ResultOnly && c.RemoteCPU && r.RemoteCPU != nil {
			vals[2] = *r.RemoteCPU
		}
		return vals, nil
	}
	var conf *stats.Confidence
	if c.IterMax > 1 {
		conf, err = stats.RunConfidence(stats.ConfidenceSpec{Level: float64(c.Level), Width: c.Width, Min: c.IterMin, Max: c.IterMax,
			Names: []string{"throughput", "local CPU util", "remote CPU util"}}, iterate)
	} else {
		_, err = iterate(1)
	}
	if errors.Is(err, errInterrupted) && len(rs) > 0 {
		err = nil // the iterations so far are reported
		if conf != nil {
			conf.Met = true // no verdict on an interrupted loop
		}
	}
	if err != nil {
		mu.Lock()
		defer mu.Unlock()
		var te *client.TestError
		if len(rs) == 0 && !errors.As(err, &te) && !s.NoControl && !embedded {
			// The far end did not answer: netperf's words, and its status.
			fmt.Fprintf(stderr, "establish control: are you sure there is a netserver listening on %s at port %d?\n", c.Host, s.Port)
			fmt.Fprintf(stderr, "netperf: %s\n", strings.TrimPrefix(err.Error(), "confidence: iteration 1: "))
			return 255
		}
		fmt.Fprintf(stderr, "netperf: %s\n", strings.TrimPrefix(err.Error(), "confidence: "))
		return 1
	}
	mu.Lock()
	defer mu.Unlock()
	f := c.figures(rs)
	if conf != nil {
		f.Met = conf.Met
		f.ThroughputConfid, f.LocalConfid, f.RemoteConfid = 0, 0, 0
		if len(conf.Widths) > 0 {
			f.ThroughputConfid = conf.Widths[0]
		}
		if len(conf.Widths) > 1 {
			f.LocalConfid = conf.Widths[1]
		}
		if len(conf.Widths) > 2 {
			f.RemoteConfid = conf.Widths[2]
		}
	}
	if c.Output == OutputClassic {
		c.Warning(stdout, f)
		c.Classic(stdout, f)
		if c.Verbosity > 1 {
			c.Verbose(stdout, f)
		}
	} else {
		c.Omni(stdout, f)
		if c.Verbosity > 1 {
			c.histogram(stdout, f, "Histogram of request/response times")
		}
	}
	return 0
}

// errInterrupted ends the iterations after an interrupted one.
var errInterrupted = errors.New("interrupted")

// newUUID is a random (version 4) UUID for the UUID selector.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
