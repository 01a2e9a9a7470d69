// Command netscript runs network benchmarks written in Starlark, and serves
// the other end of them.
//
//	netscript                       interactive session (REPL)
//	netscript FILE.star [NAME=VALUE ...]
//	netscript -c 'CODE' [NAME=VALUE ...]
//	netscript serve [--listen ADDR:PORT ...]
//	netscript version
package main

import (
	"fmt"
	"os"
	"runtime"
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
	exitInterrupted = 130
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version":
			fmt.Printf("netscript %s (commit %s, %s)\n", version, commit, runtime.Version())
			return exitOK
		case "serve":
			return serve(args[1:])
		case "help", "-h", "--help":
			usage(os.Stdout)
			return exitOK
		}
	}
	return script(args)
}

func usage(w *os.File) {
	fmt.Fprint(w, `usage:
  netscript                            interactive session
  netscript FILE.star [NAME=VALUE ...]  run a script; pairs reach it as the dict args
  netscript -c 'CODE' [NAME=VALUE ...]  run a snippet
  netscript serve [--listen ADDR:PORT]  serve the other end of tests (default :12866)
  netscript version                    version, commit and Go version
`)
}
