package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"netscript/internal/nearest"
)

// internalServeFlags are flags of `netscript serve` that only netscript
// itself passes (a script's embedded server); help and suggestions never
// name them.
var internalServeFlags = map[string]bool{"embedded-fd": true}

// parseServe parses serve's flags, saying what is wrong in one line that
// points to --help instead of the flag package's whole list. It returns
// done (with the exit status) when serve must stop: --help, or an error.
func parseServe(fs *flag.FlagSet, args []string) (done bool, code int) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case err == nil:
		return false, 0
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(os.Stdout)
		fs.Usage()
		return true, exitOK
	}
	fmt.Fprintf(os.Stderr, "netscript serve: %s; netscript serve --help lists the flags\n", serveFlagError(fs, err))
	return true, exitUsage
}

var (
	undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	invalidValue  = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]*): (.*)$`)
	needsArgument = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
)

// serveFlagError rewords the flag package's error for a user who types
// --flags: a near miss is suggested, a bad value is told what one looks
// like.
func serveFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := undefinedFlag.FindStringSubmatch(msg); m != nil {
		s := fmt.Sprintf("unknown flag --%s", m[1])
		if near := nearFlag(fs, m[1]); near != "" {
			s += fmt.Sprintf(" (did you mean --%s?)", near)
		}
		return s
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		value, name, cause := m[1], m[2], m[3]
		if f := fs.Lookup(name); f != nil {
			if want := flagWants(f); want != "" {
				return fmt.Sprintf("--%s %s: want %s", name, value, want)
			}
		}
		return fmt.Sprintf("--%s %s: %s", name, value, cause)
	}
	if m := needsArgument.FindStringSubmatch(msg); m != nil {
		if f := fs.Lookup(m[1]); f != nil {
			if want := flagWants(f); want != "" {
				return fmt.Sprintf("--%s needs a value: %s", m[1], want)
			}
		}
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	return msg
}

// flagWants says what a value of f looks like, from its type; "" when the
// flag's own error says it.
func flagWants(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "a duration such as 30s, 5m, 1h30m or 250ms (a number and a unit: ns, us, ms, s, m, h)"
	case int, int64, uint, uint64:
		return "a whole number"
	case bool:
		return "true or false (--" + f.Name + " alone is true)"
	}
	return ""
}

// nearFlag is the visible flag nearest to name, if one is close.
func nearFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if !internalServeFlags[f.Name] {
			names = append(names, f.Name)
		}
	})
	return nearest.Name(name, names)
}

// printServeFlags lists serve's flags as a user types them (--name), and
// not the internal ones.
func printServeFlags(fs *flag.FlagSet) {
	w := fs.Output()
	fs.VisitAll(func(f *flag.Flag) {
		if internalServeFlags[f.Name] {
			return
		}
		arg, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintln(w, line)
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "[]" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "    \t%s\n", strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}
