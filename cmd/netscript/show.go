package main

import (
	"fmt"
	"os"

	"netscript/record"
	"netscript/report"
)

// show prints a recorded run: what ran, where and when, and its results as
// tables. Nothing runs.
func show(args []string) int {
	args, charts := showChartFlag(args)
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "netscript: show needs one record file: netscript show RUN.json [--chart]")
		return exitUsage
	}
	run, err := record.ReadRun(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	t, err := run.Tables()
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %s: %v\n", args[0], err)
		return exitScriptError
	}
	// A record is anyone's text: its control characters are shown as
	// escapes, never sent to the terminal.
	fmt.Println(escapeTerm(run.Summary()))
	if c := run.ChecksText(); c != "" {
		fmt.Println()
		fmt.Print(escapeTerm(c))
	}
	if t != "" {
		fmt.Println()
		fmt.Println(escapeTerm(t))
	}
	if charts {
		return showCharts(args[0], run)
	}
	return exitOK
}

// showChartFlag takes --chart (and --unicode) out of show's arguments.
func showChartFlag(args []string) (rest []string, charts bool) {
	for _, a := range args {
		if a == "--chart" {
			charts = true
			continue
		}
		rest = append(rest, a)
	}
	return rest, charts
}

// showCharts prints the text charts of a recorded run after its tables.
func showCharts(path string, run *record.Run) int {
	t, err := report.Charts(run.Results, false)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %s: %v\n", path, err)
		return exitScriptError
	}
	if t != "" {
		fmt.Println()
		fmt.Println(escapeTerm(t))
	}
	return exitOK
}
