package main

import (
	"fmt"
	"os"
	"strings"

	"netscript/engine/sysinfo"
	"netscript/record"
	"netscript/script"
	"netscript/session"
)

// replay runs a recorded script again with its recorded args (NAME=VALUE
// pairs given after the record override them) and prints the new results
// beside the recorded ones, with what differs between the two machines.
func replay(o flags, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "netscript: replay needs a record file: netscript replay RUN.json [NAME=VALUE ...]")
		return exitUsage
	}
	run, err := record.ReadRun(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	override, err := script.ParseArgs(args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitUsage
	}
	kv := map[string]string{}
	for k, v := range run.Args {
		kv[k] = v
	}
	for k, v := range override {
		kv[k] = v
	}
	if !replayConsent(o, args[0], run.Script.Name, run.Script.Text, kv, run.Target, os.Stdin, os.Stderr, isTerminal(os.Stdin) && isTerminal(os.Stderr)) {
		return exitUsage
	}
	sc := &session.Script{Name: run.Script.Name, Src: []byte(run.Script.Text), Args: kv}
	o.perm.typedArgs, o.perm.replayed = override, true
	was := *run
	was.ReplayOf = nil // a replay of a replay keeps one generation
	o.replayOf = &was
	if o.target.Host == "" && run.Target != nil {
		// Where the recorded run went, unless --host (or $NETSCRIPT_HOST) says otherwise.
		o.target = *run.Target
		o.target.From = "record"
	}
	code, results := runScript(sc, o)

	fmt.Printf("\nreplay of %s, which recorded\n  %s\n", escapeTerm(args[0]), escapeTerm(strings.ReplaceAll(run.Summary(), "\n", "\n  ")))
	changes := record.EnvChanges(run.Env, sysinfo.Collect(version, commit))
	if len(changes) == 0 {
		fmt.Println("same machine settings as recorded")
	} else {
		fmt.Println("differences from the recorded machine:")
		for _, c := range changes {
			fmt.Println("  " + escapeTerm(c))
		}
	}
	if len(override) > 0 {
		fmt.Printf("args changed for this replay: %v\n", escapeTerm(fmt.Sprint(override)))
	}
	t, err := record.ReplayTable(run.Results, results)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netscript: %v\n", err)
		return exitScriptError
	}
	fmt.Println()
	fmt.Println(escapeTerm(t))
	if len(run.Results) != len(results) {
		fmt.Printf("the recorded run produced %d results, this one %d\n", len(run.Results), len(results))
	}
	return code
}
