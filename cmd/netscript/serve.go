package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/npwire"
	"netscript/engine/proto"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
	"netscript/internal/serveadvice"
	"netscript/session/embedded"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// serve runs the daemon until SIGINT or SIGTERM.
func serve(args []string) int {
	// The runtime's own limit, set here so that the ceiling of the thread
	// budget (limits.ThreadCeiling, which --max-threads is checked
	// against) is derived from the value in force.
	debug.SetMaxThreads(limits.RuntimeThreads)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var listen listFlag
	fs.Var(&listen, "listen", fmt.Sprintf("control address to listen on, ADDR:PORT (repeatable; default :%d)", spec.DefaultControlPort))
	var data listFlag
	fs.Var(&data, "data", "a standing data endpoint for tests run with control=False (netperf -N): "+
		"WORKLOAD:[ADDR:]PORT[,request=N,response=N,send_size=N,from=PREFIX], e.g. tcp_crr:12345 (repeatable)")
	var npListen listFlag
	fs.Var(&npListen, "netperf-listen", fmt.Sprintf("also answer unmodified netperf 2.7 clients on ADDR:PORT (repeatable; netperf's port is %d); netperf has no authentication", npwire.DefaultPort))
	npInsecure := fs.Bool("netperf-insecure", false, "allow --netperf-listen on a daemon that has a token: netperf clients are not asked for it")
	npAny := fs.Bool("netperf-any-source", false, "take a netperf TCP test's data connections from any address, as netserver does (default: only from its control connection's address; a UDP test's always so); for netperf -- -L on a client with several addresses")
	quiet := fs.Bool("quiet", false, "log only errors")
	unixDir := fs.String("unix-dir", "", "make the sockets of tests over UNIX domain sockets as files in a directory of the daemon's own under DIR, removed when it exits (default: abstract names, which leave no file)")
	tokenFile := fs.String("token-file", "", "a file holding the secret clients must prove they hold (else $"+auth.EnvToken+"; neither: anyone may use the server)")
	var allow allowClient
	fs.Var(&allow, "allow-client", allowClientUsage)
	lim := limits.Default()
	registerLimits(fs, &lim)
	embeddedFD := fs.Int("embedded-fd", -1, "(internal) serve as a script's embedded server, taking its token from and reporting its addresses on this descriptor")
	fs.Usage = func() { serveUsage(fs) }
	if done, code := parseServe(fs, args); done {
		return code
	}
	if allow.bad != "" {
		fmt.Fprintf(os.Stderr, "netscript serve: %s\n", allow.problem())
		return exitUsage
	}
	if fs.NArg() > 0 {
		hint := ""
		if a := fs.Arg(0); a == "netscript" || a == "true" || a == "false" {
			hint = fmt.Sprintf(" (a value of --allow-client goes after '=': --allow-client=%s)", a)
		}
		fmt.Fprintf(os.Stderr, "netscript serve: unexpected argument %q%s\n", fs.Arg(0), hint)
		return exitUsage
	}
	if len(listen) == 0 {
		listen = listFlag{fmt.Sprintf(":%d", spec.DefaultControlPort)}
	}
	if err := lim.Validate(); err != nil {
		fmt.Fprintf(os.Stderr, "netscript serve: %s\n", limitsError(err))
		return exitUsage
	}
	if *embeddedFD >= 0 {
		// A script's own server: its token comes from the script, on fd.
		err := embedded.Serve(*embeddedFD, listen, func(tok auth.Token) *server.Server {
			return server.New(server.Config{Version: version, Commit: commit, Threads: &workload.Threads{},
				Log: io.Discard, Limits: embedded.Limits(lim), Token: tok, Explain: serveadvice.Explain}) // the script reports every failure itself
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "netscript serve: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	tok, err := auth.LoadToken(*tokenFile, os.Getenv(auth.EnvToken))
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript serve: %v\n", err)
		return exitUsage
	}
	if tok != nil && len(npListen) > 0 && !*npInsecure {
		fmt.Fprintf(os.Stderr, "netscript serve: --netperf-listen would let anyone run tests without the token (netperf cannot prove it holds one); add --netperf-insecure to allow that\n")
		return exitUsage
	}
	if st, err := os.Stat(*tokenFile); err == nil && st.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(os.Stderr, "netscript serve: warning: other users can read the token file %s (chmod 600 %s)\n", *tokenFile, *tokenFile)
	}
	// Every --data value is checked before anything listens.
	datas := make([]server.DataConfig, len(data))
	for i, d := range data {
		if datas[i], err = parseData(d); err == nil {
			err = server.CheckData(&datas[i])
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "netscript serve: --data %s: %v\n", d, err)
			return exitUsage
		}
	}
	if *unixDir != "" {
		if st, err := os.Stat(*unixDir); err != nil || !st.IsDir() {
			fmt.Fprintf(os.Stderr, "netscript serve: --unix-dir %s: not a directory\n", *unixDir)
			return exitUsage
		}
	}
	th := &workload.Threads{}
	// With --allow-client the daemon runs the client side of tests for
	// scripts (client=) within its own bounds, proving its token to their
	// servers; without, it refuses them naming the flag.
	ag := allow.clientAgent(th, tok, lim)
	srv := server.New(server.Config{Version: version, Commit: commit, Threads: th, Log: os.Stderr, Limits: lim, Token: tok, Agent: ag, NetperfAnySource: *npAny, UnixDir: *unixDir,
		Explain: serveadvice.Explain, LogPrefix: "netscript serve: "}) // its refusals and log name the flags that set its bounds
	defer srv.Close()
	// Every listener and endpoint is bound before any serves: if one
	// cannot be, none ever did.
	opened, err := srv.Open(server.Plan{Listen: listen, Netperf: npListen, Data: datas})
	if err != nil {
		var oe *server.OpenError
		switch {
		case errors.As(err, &oe) && oe.Kind == "netperf":
			fmt.Fprintf(os.Stderr, "netscript serve: --netperf-listen: %v\n", err)
		case errors.As(err, &oe) && oe.Kind == "data":
			fmt.Fprintf(os.Stderr, "netscript serve: --data %s: %v\n", data[oe.Index], err)
		default:
			fmt.Fprintf(os.Stderr, "netscript serve: %v\n", err)
		}
		return exitUsage
	}
	if !*quiet {
		for _, addr := range opened.Netperf {
			fmt.Fprintf(os.Stderr, "netscript serve: answering netperf clients on %s, without authentication\n", addr)
		}
		access := "no token is set, so anyone who can reach it may use it"
		if tok != nil {
			access = "clients must prove they hold the token from " + tokenSource(*tokenFile)
		}
		for _, addr := range opened.Listen {
			fmt.Fprintf(os.Stderr, "netscript serve: listening on %s (protocol %d); %s\n", addr, proto.Version, access)
		}
	}
	if n := allow.notice(tok, tokenSource(*tokenFile)); n != "" && (tok == nil || !*quiet) {
		fmt.Fprintf(os.Stderr, "netscript serve: %s\n", n) // the warning even when quiet
	}
	if !*quiet {
		for i, addr := range opened.Data {
			fmt.Fprintf(os.Stderr, "netscript serve: standing %s endpoint on %s (no control connection: use control=False, data_port=%d)\n",
				datas[i].Workload.Name, addr, addr.Port())
		}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	<-ch
	return exitOK
}

// serveUsage is `netscript serve -h`: what the daemon lets others do, then
// its flags.
func serveUsage(fs *flag.FlagSet) {
	fmt.Fprintf(fs.Output(), `usage: netscript serve [--listen ADDR:PORT ...] [--token-file FILE] [--allow-client] [--data ...] [--max-... bounds]

Serves the other end of tests (netperf's netserver) to anyone who can
reach it, within the bounds below; with --token-file (or $%s)
only to clients that prove they hold the token.

It runs the client side of tests for scripts (client=), making this machine
send traffic for them, only with --allow-client: then only toward netscript
daemons (each data port shows the test's tag before any data is sent to
it) and only from this machine's own addresses (local=); never a test with
no handshake (control=False, a netserver). Without a token, whoever can
reach the daemon may do this.

`, auth.EnvToken)
	printServeFlags(fs)
}

// tokenSource names where the token came from.
func tokenSource(file string) string {
	if file != "" {
		return file
	}
	return "$" + auth.EnvToken
}

// parseData reads a --data value: WORKLOAD:[ADDR:]PORT with optional
// ,request=N,response=N,send_size=N. The workload is a builtin's name
// (tcp_crr) or netperf's (TCP_CRR).
func parseData(v string) (server.DataConfig, error) {
	var cfg server.DataConfig
	head, opts, _ := strings.Cut(v, ",")
	name, where, ok := strings.Cut(head, ":")
	if !ok || where == "" {
		return cfg, fmt.Errorf("want WORKLOAD:PORT or WORKLOAD:ADDR:PORT, e.g. tcp_rr:12345")
	}
	w, err := spec.LookupWorkload(name)
	if err != nil {
		return cfg, fmt.Errorf("unknown workload %q (%s)", name, strings.Join(spec.WorkloadNames(), ", "))
	}
	cfg.Workload = w
	if port, err := strconv.Atoi(where); err == nil {
		if port < 1 || port > 65535 {
			return cfg, fmt.Errorf("port %d out of range 1-65535", port)
		}
		cfg.Addr = netip.AddrPortFrom(netip.Addr{}, uint16(port))
	} else if cfg.Addr, err = netip.ParseAddrPort(where); err != nil || cfg.Addr.Port() == 0 {
		return cfg, fmt.Errorf("%q is not PORT or ADDR:PORT (an IP address and a port 1-65535)", where)
	}
	if opts == "" {
		return cfg, nil
	}
	for _, kv := range strings.Split(opts, ",") {
		k, val, _ := strings.Cut(kv, "=")
		if k == "from" {
			n, err := parseFrom(val)
			if err != nil {
				return cfg, err
			}
			cfg.From = append(cfg.From, n)
			continue
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("%s: want a size in bytes, got %q", k, val)
		}
		switch k {
		case "request":
			cfg.Request = n
		case "response":
			cfg.Response = n
		case "send_size":
			cfg.SendSize = n
		default:
			return cfg, fmt.Errorf("unknown setting %q (request, response, send_size, from)", k)
		}
	}
	return cfg, nil
}

// parseFrom reads a --data endpoint's from=: a network (198.18.0.0/24) or
// one address, which is its own network of one.
func parseFrom(val string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(val); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(val)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("from: want a network (198.18.0.0/24) or an address, got %q", val)
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}
