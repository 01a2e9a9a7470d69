package netperfcli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/stats"
	"netscript/session"
)

// Main is `netscript netperf ARGS...`: MainProgram under the name
// netperf.
func Main(ctx context.Context, args []string, sess *session.Session, version string, stdout, stderr io.Writer) int {
	return MainProgram(ctx, "netperf", args, sess, version, stdout, stderr)
}

// MainProgram is netperf run as prog (its name in getopt's messages and
// in COMMAND_LINE) with args: it prints the script with --script (before
// the netperf options), runs the test on the engine otherwise, prints
// what netperf prints and returns netperf's exit status.
func MainProgram(ctx context.Context, prog string, args []string, sess *session.Session, version string, stdout, stderr io.Writer) int {
	script := false
	if len(args) > 0 && args[0] == "--script" {
		script, args = true, args[1:]
	}
	c, err := Parse(prog, args, stdout, stderr)
	if err != nil {
		return report(err, stdout, stderr)
	}
	switch {
	case c.Version:
		fmt.Fprintln(stdout, "Netperf version 2.7.1")
		return 0
	case c.Help:
		fmt.Fprint(stderr, Usage())
		return 1
	case c.Test.Help:
		fmt.Fprint(stdout, TestUsage(c.Test.Omni))
		return 1
	case c.Test.List != 0:
		fmt.Fprint(stdout, ListSelectors(c.Test.List != OutputHuman))
		return 1
	}
	if script {
		src, err := c.Script()
		if err != nil {
			return report(err, stdout, stderr)
		}
		fmt.Fprint(stdout, src)
		return 0
	}
	return c.Run(ctx, sess, stdout, stderr)
}

// report prints a refusal or failure where netperf prints it and returns
// its exit status.
func report(err error, stdout, stderr io.Writer) int {
	var e *Error
	if !errors.As(err, &e) {
		fmt.Fprintln(stderr, err)
		return 1
	}
	out := stderr
	if e.Stdout {
		out = stdout
	}
	if e.Msg != "" {
		fmt.Fprintln(out, e.Msg)
	}
	if e.Usage {
		fmt.Fprint(stderr, Usage())
	}
	return e.Status
}

// Run runs the command's test, its iterations, and prints netperf's
// output; it returns netperf's exit status.
func (c *Command) Run(ctx context.Context, sess *session.Session, stdout, stderr io.Writer) int {
	switch c.TestName {
	case "LOC_CPU", "REM_CPU":
		return c.cpuRate(ctx, stdout, stderr)
	}
	c.uuid = c.Test.UUID
	if c.uuid == "" {
		c.uuid = newUUID()
	}
	if c.TestName == "UUID" {
		fmt.Fprint(stdout, c.uuid)
		return 0
	}
	s, err := c.Spec()
	if err != nil {
		return report(c.explain(err), stdout, stderr)
	}
	opt, err := c.runOptions(sess, &s)
	if err != nil {
		return report(c.explain(err), stdout, stderr)
	}
	if np, err := c.netperfRequest(ctx, &s); err != nil {
		return report(c.explain(err), stdout, stderr)
	} else if np != nil {
		opt.Netperf = np
	}
	if c.WaitSecs > 0 {
		// netperf waits between setting the test up and its first byte;
		// netscript before it sets it up.
		select {
		case <-time.After(time.Duration(c.WaitSecs) * time.Second):
		case <-ctx.Done():
			return 1
		}
	}
	var mu sync.Mutex
	var once sync.Once
	var remote netip.Addr
	printBanner := func() {
		once.Do(func() {
			if c.PrintHeaders != 0 {
				c.Banner(stdout, remote)
			}
		})
	}
	if c.DemoMode > 0 {
		n := 0
		opt.Interim = func(in client.Interim) {
			mu.Lock()
			defer mu.Unlock()
			printBanner()
			c.Interim(stdout, n, c.interimRate(in.Throughput), in.Interval, in.Ending)
			n++
		}
	}
	var its []*iteration
	interrupted := false
	iterate := func(int) ([]float64, error) {
		if interrupted {
			return nil, errInterrupted
		}
		it := &iteration{}
		o := opt
		o.Detail = &it.d
		r, err := c.runOnce(ctx, sess, s, o)
		var te *client.TestError
		if err != nil && ctx.Err() != nil && errors.As(err, &te) && te.Partial != nil && te.Partial.Elapsed > 0 {
			// Interrupted: netperf reports what it measured until then.
			r, err, interrupted = te.Partial, nil, true
		}
		if err != nil {
			return nil, err
		}
		it.r = r
		mu.Lock()
		if a, err := netip.ParseAddr(r.RemoteAddress); err == nil {
			remote = a
		}
		printBanner()
		mu.Unlock()
		its = append(its, it)
		v := c.iterFigures(it)
		// The stopping rule watches the CPU figures asked for too, unless
		// -r; one not measured counts as 0, which never blocks it.
		vals := []float64{v.thruput, 0, 0}
		if !c.ResultOnly {
			vals[1], vals[2] = max(v.localCPU, 0), max(v.remoteCPU, 0)
		}
		return vals, nil
	}
	var conf *stats.Confidence
	if c.IterMax > 1 {
		conf, err = stats.RunConfidence(stats.ConfidenceSpec{Level: float64(c.Level), Width: c.Interval * 100,
			Min: c.IterMin, Max: c.IterMax, Names: []string{"throughput", "local CPU util", "remote CPU util"}}, iterate)
	} else {
		_, err = iterate(1)
	}
	if errors.Is(err, errInterrupted) && len(its) > 0 {
		err = nil // the iterations so far are reported
		if conf != nil {
			conf.Met = true // no verdict on an interrupted loop
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		return c.failed(err, len(its) > 0, stdout, stderr)
	}
	f := c.figures(its)
	if conf != nil {
		f.Met = conf.Met
		f.ResultConfid, f.LocalConfid, f.RemoteConfid = widths(conf)
		f.IntervalPct = c.Interval * 100
	}
	c.dumpTCPInfo(stderr, f)
	return c.print(stdout, stderr, f)
}

// print writes the test's output in its form.
func (c *Command) print(stdout, stderr io.Writer, f *Figures) int {
	if c.Test.Legacy || !c.Test.Omni {
		c.Warning(stdout, f)
		c.Classic(stdout, f)
		if c.Verbosity > 1 {
			c.Verbose(stdout, f)
		}
		return 0
	}
	if err := c.Omni(stdout, f); err != nil {
		return report(err, stdout, stderr)
	}
	if c.Verbosity > 1 {
		c.histogram(stdout, f, "Histogram of "+c.histogramOf()+" times")
	}
	return 0
}

// widths are the confidence intervals reached, in percent.
func widths(conf *stats.Confidence) (res, loc, rem float64) {
	w := append(append([]float64{}, conf.Widths...), 0, 0, 0)
	return w[0], w[1], w[2]
}

// interimRate converts an interim sample's throughput in the engine's
// units (Trans/s, 10^6 bits/s) to -f's, as netperf's demo mode counts:
// transactions, or the bytes of each transaction's request and response.
func (c *Command) interimRate(v float64) float64 {
	if c.isRR() || c.isCC() {
		if c.Format == 'x' {
			return v
		}
		return c.calcThruput(v*float64(max(c.Test.ReqSize, 0)+max(c.Test.RspSize, 0)), 1)
	}
	return c.calcThruput(v*1e6/8, 1)
}

// runOptions are what the test asks of the session beyond its spec. With
// no host the session runs it against its embedded server; started here,
// a server that cannot start is reported before anything is printed.
func (c *Command) runOptions(sess *session.Session, s *spec.Spec) (session.RunOptions, error) {
	if c.embedded() {
		if _, err := sess.Embedded(s.Family); err != nil {
			return session.RunOptions{}, err
		}
	}
	return session.RunOptions{}, nil
}

// refusedFor is how long a test without a control connection tries again
// when its data port refuses it before any work: what it talks to may be
// a netserver another netperf is still setting up (seed 004's recipe: one
// netperf with control opens the port, sixteen -N ones follow a tenth of a
// second later), which netperf would not notice for UDP (its lost first
// request) and which netscript's connected sockets do.
const refusedFor = time.Second

// runOnce runs one iteration.
func (c *Command) runOnce(ctx context.Context, sess *session.Session, s spec.Spec, opt session.RunOptions) (*result.Result, error) {
	start := time.Now()
	for {
		r, err := sess.Run(ctx, s, opt)
		var nw *client.NoWorkError
		var te0 *client.TestError
		if errors.As(err, &nw) && errors.As(err, &te0) && te0.Partial != nil && ctx.Err() == nil {
			// netperf prints what a test that completed nothing counted
			// (0.00 Trans/s) and goes on: seed 004's sixteen -N netperfs
			// share one netserver port, and one whose SYNs all wait in a
			// full backlog for the test's length is such a test.
			return te0.Partial, nil
		}
		if err == nil || !c.NoControl || !errors.Is(err, syscall.ECONNREFUSED) || ctx.Err() != nil {
			return r, err
		}
		var te *client.TestError
		if errors.As(err, &te) && te.Partial != nil && te.Partial.Transactions+te.Partial.BytesReceived > 0 {
			if !s.Workload.Datagram {
				return r, err // netperf fails a TCP test its far end refuses
			}
			return c.refusedUDP(ctx, start, s, te.Partial), nil
		}
		if time.Since(start) > refusedFor {
			return r, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// refusedUDP is a UDP test without a control connection whose far end
// went away (netserver's test ended, as seed 004's recipe has it): netperf
// sends from an unconnected socket, never hears of it, and waits out its
// timer, so its result is what was done over the whole test length.
func (c *Command) refusedUDP(ctx context.Context, start time.Time, s spec.Spec, r *result.Result) *result.Result {
	if s.Duration <= 0 || s.Duration == spec.MaxDuration {
		return r
	}
	select {
	case <-time.After(time.Until(start.Add(s.Duration))):
	case <-ctx.Done():
	}
	r.Elapsed = s.Duration.Seconds()
	r.Throughput = float64(r.Transactions) / r.Elapsed
	if s.Workload.Bulk {
		r.Throughput = float64(r.BytesSent) * 8 / r.Elapsed / 1e6
	}
	return r
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
