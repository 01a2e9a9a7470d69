package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"netscript/record"
	"netscript/report"
	"netscript/starlib/plot"
)

// reportCommand writes a recorded run as one self-contained HTML page: netscript
// report RUN.json -o REPORT.html. Nothing runs.
func reportCommand(args []string) int {
	const use = "netscript report RUN.json -o REPORT.html"
	var in, out string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "--output":
			if i+1 >= len(args) || args[i+1] == "" {
				fmt.Fprintf(os.Stderr, "netscript: report: %s needs a file name: %s\n", a, use)
				return exitUsage
			}
			out = args[i+1]
			i++
		case strings.HasPrefix(a, "--output="):
			out = strings.TrimPrefix(a, "--output=")
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(os.Stderr, "netscript: report: unknown flag %s: %s\n", a, use)
			return exitUsage
		case in != "":
			fmt.Fprintf(os.Stderr, "netscript: report takes one record, got %s and %s: %s\n", in, a, use)
			return exitUsage
		default:
			in = a
		}
	}
	if in == "" || out == "" {
		fmt.Fprintf(os.Stderr, "netscript: report needs a record and an output file: %s\n", use)
		return exitUsage
	}
	run, err := record.ReadRun(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	// Opened before the page is built, so a path that cannot be written is
	// said at once; a page that cannot be built leaves the old one there.
	f, err := plot.NewPending(nil, out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: report -o %s: %v\n", out, errors.Unwrap(err))
		return exitUsage
	}
	var page bytes.Buffer
	if err := report.HTML(&page, run); err != nil {
		f.Abort()
		fmt.Fprintf(os.Stderr, "netscript: report of %s: %v\n", in, err)
		return exitScriptError
	}
	if _, err := f.Write(page.Bytes()); err != nil {
		f.Abort()
		fmt.Fprintf(os.Stderr, "netscript: report -o %s: %v\n", out, pathErr(err))
		return exitScriptError
	}
	if err := f.Commit(); err != nil {
		fmt.Fprintf(os.Stderr, "netscript: report -o %s: %v\n", out, err)
		return exitScriptError
	}
	return exitOK
}
