package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// serve runs the daemon until SIGINT or SIGTERM.
func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var listen listFlag
	fs.Var(&listen, "listen", fmt.Sprintf("control address to listen on, ADDR:PORT (repeatable; default :%d)", spec.DefaultControlPort))
	quiet := fs.Bool("quiet", false, "log only errors")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "netscript serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if len(listen) == 0 {
		listen = listFlag{fmt.Sprintf(":%d", spec.DefaultControlPort)}
	}
	srv := server.New(server.Config{Version: version, Threads: &workload.Threads{}, Log: os.Stderr})
	defer srv.Close()
	for _, a := range listen {
		addr, err := srv.Listen(a)
		if err != nil {
			fmt.Fprintf(os.Stderr, "netscript serve: %v\n", err)
			return exitUsage
		}
		if !*quiet {
			fmt.Fprintf(os.Stderr, "netscript serve: listening on %s (protocol %d); no token is set, so anyone who can reach it may use it\n", addr, 1)
		}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	<-ch
	return exitOK
}
