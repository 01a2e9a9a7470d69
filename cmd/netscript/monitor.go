package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"netscript/engine/auth"
	"netscript/engine/result"
	"netscript/monitor"
	"netscript/script"
	"netscript/session"
	"netscript/starlib/thread"
)

// monitorFlags are monitor's own flags; the others are the script's
// (--host, --token-file, ...).
type monitorFlags struct {
	every  time.Duration
	listen string
	jitter float64
}

// monitorCommand runs `netscript monitor [FLAGS] SCRIPT [NAME=VALUE ...]
// --every DUR --metrics-listen ADDR`: the script over and over, its latest
// figures served to Prometheus, until SIGTERM or Ctrl-C.
func monitorCommand(args []string) int {
	mf, args, err := parseMonitorFlags(args)
	if err == nil && mf.listen == "" {
		err = fmt.Errorf("monitor needs --metrics-listen ADDR (such as 127.0.0.1:9464, or :0 for a port the kernel picks)")
	}
	if err == nil && mf.every <= 0 {
		err = fmt.Errorf("monitor needs --every DURATION (such as 5m)")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	o, rest, err := parseFlags(args)
	if err == nil && (o.code != nil || o.record != "" || o.jsonLines != "" || o.junit != "") {
		err = fmt.Errorf("monitor runs a script file; -c, --record, --json-lines and --junit do not apply")
	}
	if err == nil && len(rest) == 0 {
		err = fmt.Errorf("monitor needs a script: netscript monitor SCRIPT --every DURATION --metrics-listen ADDR")
	}
	if err == nil {
		o.token, err = auth.LoadToken(o.tokenFile, os.Getenv(auth.EnvToken))
	}
	if err == nil {
		o.target, err = resolveTarget(o.targetFlags, os.Getenv)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	sc, err := script.ReadScript(rest[0], o.perm.limits.ScriptBytes)
	if err == nil {
		sc.Args, err = script.ParseArgs(rest[1:])
		o.perm.typedArgs = sc.Args
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	ln, err := net.Listen("tcp", mf.listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: --metrics-listen %s: %v\n", mf.listen, err)
		return exitUsage
	}
	o.quiet = true
	// What the person allowed on the command line, as for a script; a
	// monitor never asks on the terminal (no one answers at 3 a.m.): a
	// host not allowed fails the run, which is counted.
	perms := o.perm.permissions(sc, o)
	perms.Ask = nil
	m := monitor.New(monitor.Config{Every: mf.every, Jitter: mf.jitter, Log: os.Stderr,
		Run: func(ctx context.Context) (monitor.Outcome, error) { return monitorRun(ctx, sc, o, perms) }})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(os.Stderr, "netscript monitor: %s every %s, metrics on http://%s/metrics\n", sc.Name, mf.every, ln.Addr())
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx, ln) }()
	m.Loop(ctx)
	stop()
	if err := <-served; err != nil {
		fmt.Fprintf(os.Stderr, "netscript: --metrics-listen %s: %v\n", mf.listen, err)
		return exitScriptError
	}
	fmt.Fprintln(os.Stderr, "netscript monitor: stopped")
	return exitOK
}

// monitorRun runs sc once in a session of its own (its embedded server,
// its checks), its printed output dropped: the metrics are its output.
func monitorRun(ctx context.Context, sc *session.Script, o flags, perms *session.Permissions) (monitor.Outcome, error) {
	sess := newSession(o)
	defer sess.Close()
	sess.Limits, sess.Perms = o.perm.limits, perms
	sess.Stdout = io.Discard
	var out monitor.Outcome
	sess.OnResult = func(res *result.Result, err error) {
		if err == nil {
			out.Results = append(out.Results, res)
		}
	}
	th := thread.New("main", sess, ctx)
	stopCancel := context.AfterFunc(ctx, func() { th.Cancel("stopped") })
	defer stopCancel()
	_, err := script.Exec(th, sc)
	out.Checks = sess.Checks()
	if err != nil {
		return out, fmt.Errorf("%s", script.FormatError(err, script.Source(sc)))
	}
	return out, nil
}

// parseMonitorFlags takes monitor's own flags out of args, wherever they
// are before the script's NAME=VALUE pairs.
func parseMonitorFlags(args []string) (monitorFlags, []string, error) {
	mf := monitorFlags{jitter: 0.1}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		switch name {
		case "-every", "-metrics-listen", "-jitter":
		default:
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return mf, nil, fmt.Errorf("%s needs a value", a)
			}
			i++
			val = args[i]
		}
		switch name {
		case "-every":
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				return mf, nil, fmt.Errorf("--every %q: want a duration such as 30s or 5m", val)
			}
			mf.every = d
		case "-metrics-listen":
			mf.listen = val
		case "-jitter":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || f < 0 || f >= 1 {
				return mf, nil, fmt.Errorf("--jitter %q: want a fraction of --every from 0 to below 1 (0.1: ±10 %%)", val)
			}
			mf.jitter = f
		}
	}
	return mf, rest, nil
}
