// Command netscript runs network benchmarks written in Starlark, and serves
// the other end of them.
//
//	netscript                       interactive session (REPL)
//	netscript [--quiet] [--keep-going] [--record RUN.json] [--json-lines FILE] [--host ADDR [--port N] [--server KIND]] FILE.star [NAME=VALUE ...]
//	netscript [--quiet] [--record RUN.json] [--json-lines FILE] [--host ...] -c 'CODE' [NAME=VALUE ...]
//	netscript replay RUN.json [NAME=VALUE ...]
//	netscript show RUN.json [--chart]
//	netscript report RUN.json -o REPORT.html
//	netscript serve [--listen ADDR:PORT ...] [--token-file FILE] [--allow-client[=any]] [--max-... bounds]
//	netscript netperf [--script] NETPERF-ARGS...
//	netscript monitor SCRIPT --every DUR --metrics-listen ADDR [--jitter F]
//	netscript version
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"netscript/engine/auth"
	"netscript/record"
	"netscript/session"
)

// Set at build time by the Makefile (-ldflags -X).
var (
	version = "dev"
	commit  = "unknown"
)

// Exit statuses.
const (
	exitOK          = 0
	exitScriptError = 1
	exitUsage       = 2
	exitTestsFailed = 3 // the script ran to its end past tests that failed
	exitCheckFailed = 4 // the script ran to its end, no test failed, and a check() failed
	exitInterrupted = 130
)

func main() {
	// Invoked as netperf, it is netperf; its embedded server is this
	// binary again, run as `serve` (no netperf line starts so).
	if filepath.Base(os.Args[0]) == "netperf" && (len(os.Args) < 2 || os.Args[1] != "serve") {
		os.Exit(netperfCommand(os.Args[0], os.Args[1:]))
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version":
			return versionCommand()
		case "serve":
			return serve(args[1:])
		case "monitor":
			return monitorCommand(args[1:])
		case "netperf":
			return netperfCommand("netscript netperf", args[1:])
		case "help", "-h", "--help":
			usage(os.Stdout)
			return exitOK
		}
	}
	o, rest, err := parseFlags(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v (netscript help lists the commands and flags)\n", err)
		return exitUsage
	}
	if o.record != "" && o.jsonLines != "-" && filepath.Clean(o.record) == filepath.Clean(o.jsonLines) {
		fmt.Fprintf(os.Stderr, "netscript: --record and --json-lines both name %s: each needs a file of its own\n", o.record)
		return exitUsage
	}
	// The token (--token-file, else $NETSCRIPT_TOKEN) is checked before
	// anything runs and handed to the script's environment, which passes it
	// to every test it runs and to its embedded server; this process's own
	// environment stays as it was.
	tok, err := auth.LoadToken(o.tokenFile, os.Getenv(auth.EnvToken))
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	o.token = tok
	if o.code == nil && len(rest) > 0 && (rest[0] == "show" || rest[0] == "report") {
		// These read a record and run nothing: no target to resolve, so a
		// $NETSCRIPT_HOST that resolves only inside a lab does not stop
		// them.
		if o.record != "" || o.targetFlags.given() {
			fmt.Fprintf(os.Stderr, "netscript: %s runs nothing, so --record, --host, --port and --server do not apply\n", rest[0])
			return exitUsage
		}
		if rest[0] == "show" {
			return show(rest[1:])
		}
		return reportCommand(rest[1:])
	}
	if o.target, err = resolveTarget(o.targetFlags, os.Getenv); err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	if o.code == nil && len(rest) > 0 && rest[0] == "replay" {
		return replay(o, rest[1:])
	}
	return scriptCommand(o, rest)
}

// flags are the options before the script (or -c) that say how to run it.
type flags struct {
	quiet     bool    // no live progress
	keepGoing bool    // --keep-going: every test's failure is kept as a failed result
	record    string  // write a record of the run to this file
	code      *string // -c CODE

	tokenFile string     // the secret to prove to servers (instead of $NETSCRIPT_TOKEN)
	token     auth.Token // loaded from tokenFile or $NETSCRIPT_TOKEN before anything runs

	replayOf    *record.Run    // replay: the record run again, kept in the new record
	targetFlags                // --host, --port, --server as given
	target      session.Target // from targetFlags or $NETSCRIPT_HOST, checked before anything runs
	jsonLines   string         // --json-lines FILE ("-": stdout)
	junit       string         // --junit FILE: the checks as a JUnit XML report
	perm        permFlags      // --allow-*, --yes, --max-*
}

// parseFlags reads flags up to the first argument that is not one (the
// script, or a NAME=VALUE after -c CODE).
func parseFlags(args []string) (flags, []string, error) {
	var o flags
	o.perm.limits = session.DefaultLimits()
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			return o, args[1:], nil
		case a == "-q" || a == "--quiet":
			o.quiet = true
		case a == "-k" || a == "--keep-going":
			o.keepGoing = true
		case a == "-c":
			if len(args) < 2 {
				return o, nil, fmt.Errorf("-c needs the code to run")
			}
			o.code = &args[1]
			args = args[1:]
		case isFileFlag(a, "record"):
			var err error
			if o.record, args, err = fileFlag("record", args); err != nil {
				return o, nil, err
			}
		case isFileFlag(a, "token-file"):
			var err error
			if o.tokenFile, args, err = fileFlag("token-file", args); err != nil {
				return o, nil, err
			}
		case isValueFlag(a, "host"):
			var err error
			if o.host, args, err = valueFlag("host", "an address (ADDR or ADDR:PORT)", args); err != nil {
				return o, nil, err
			}
		case isValueFlag(a, "port"):
			var err error
			if o.port, args, err = valueFlag("port", "a port", args); err != nil {
				return o, nil, err
			}
		case isValueFlag(a, "server"):
			var err error
			if o.server, args, err = valueFlag("server", "netscript or netserver", args); err != nil {
				return o, nil, err
			}
		case isFileFlag(a, "junit"):
			var err error
			if o.junit, args, err = fileFlag("junit", args); err != nil {
				return o, nil, err
			}
		case isFileFlag(a, "json-lines"):
			var err error
			if o.jsonLines, args, err = fileFlag("json-lines", args); err != nil {
				return o, nil, err
			}
		case strings.HasPrefix(a, "-") && a != "-":
			rest, ok, err := o.perm.parse(args)
			if err != nil {
				return o, nil, err
			}
			if !ok {
				return o, nil, fmt.Errorf("unknown flag %s", a)
			}
			args = rest
		default:
			return o, args, nil
		}
		args = args[1:]
	}
	return o, args, nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  netscript                             interactive session
  netscript FILE.star [NAME=VALUE ...]  run a script; pairs reach it as the dict args
  netscript -c 'CODE' [NAME=VALUE ...]  run a snippet
  netscript replay RUN.json [NAME=VALUE ...]
                                        run a recorded script again, new results beside the old
  netscript show RUN.json [--chart]     a recorded run's results as tables (and text charts)
  netscript report RUN.json -o REPORT.html
                                        a recorded run as one HTML page: tables and plots
  netscript serve [--listen ADDR:PORT]  serve the other end of tests (default :12866);
                                        netscript serve --help lists its bounds, --token-file
                                        and --allow-client (run client sides for scripts)
  netscript netperf [--script] ARGS...  netperf 2.7.1's command line on netscript's engine, with
                                        netperf's output (--script: print the Starlark it amounts to);
                                        the binary run under the name netperf is the same
  netscript monitor SCRIPT --every DUR --metrics-listen ADDR [--jitter F]
                                        run SCRIPT again and again, its latest figures and
                                        checks served to Prometheus (docs/ci.md)
  netscript version                     version, commit and Go version
flags before the script or -c:
  --record RUN.json  write the script, its args, env() and every result to RUN.json
  --quiet, -q        no live progress on stderr
  --keep-going, -k   a test that fails is kept as a failed result (ok False, its error) and the
                     script goes on, as keep_going=True in every call; the exit status is then 3
  --token-file FILE  the secret to prove to servers that ask for one (else $NETSCRIPT_TOKEN)
  --host ADDR[:PORT] where every test that names no host goes (else $NETSCRIPT_HOST; default:
                     the embedded server); a test that names host keeps it, and its own port
  --port N           the port of --host (else $NETSCRIPT_PORT when the host is $NETSCRIPT_HOST)
  --server KIND      what answers at --host: netscript (netscript serve) or netserver
  --json-lines FILE  one JSON object per line as each test ends (and each interim sample);
                     - is stdout, and print() then goes to stderr
permissions of a script file (docs/security.md; -c code and the REPL have them all):
  --allow-read DIR   load() may read beneath DIR too (default: the script's own directory)
  --allow-write DIR  plot(file=...) may write beneath DIR too (default: the working directory)
  --allow-net[=HOST,...]
                     tests may reach HOST (bare: every host) without asking; by default the
                     embedded server, --host and hosts given as NAME=VALUE are allowed, and
                     any other host is asked about on a terminal and refused without one
  --yes, -y          replay: run the recorded script without showing it and asking
  --max-steps N, --max-memory MB, --max-script-size KB, --max-picture-pixels N,
  --max-picture-points N
                     the limits a script stops at (defaults: 2e9 steps, 2048 MB, 1024 KB,
                     1e8 pixels, 1e6 points)
`)
}

// isFileFlag reports whether a is the flag --name (or -name), alone or as
// --name=FILE.
func isFileFlag(a, name string) bool {
	return a == "--"+name || a == "-"+name || strings.HasPrefix(a, "--"+name+"=")
}

// fileFlag takes the file name of the flag --name at args[0], given as
// --name=FILE or as the next argument; it returns the name and args with
// the flag's value consumed (args[0] stays for the caller's loop to step
// over).
func fileFlag(name string, args []string) (string, []string, error) {
	if v, ok := strings.CutPrefix(args[0], "--"+name+"="); ok {
		if v == "" {
			return "", args, fmt.Errorf("--%s needs a file name", name)
		}
		return v, args, nil
	}
	if len(args) < 2 || args[1] == "" {
		return "", args, fmt.Errorf("--%s needs a file name", name)
	}
	return args[1], args[1:], nil
}
