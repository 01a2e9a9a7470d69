package plot_test

import (
	"regexp"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/module"
	"netscript/starlib/plot"
)

// TestPlotHelpAlike: the picture builtins' help is written as every help()
// entry is: a one-line signature, a blank line, a sentence starting with a
// verb in the third person, lines within module.MailWidth; help() lists
// each with its lower-case line.
func TestPlotHelpAlike(t *testing.T) {
	thirdPerson := regexp.MustCompile(`^[A-Z][a-z]+(-[a-z]+)?s$`)
	for n, d := range plot.Module.Help {
		lines := strings.Split(d, "\n")
		sig := regexp.MustCompile(`^` + regexp.QuoteMeta(n) + `(\(.*\)( -> [A-Za-z]+)?| \([a-z ]+\))$`)
		if !sig.MatchString(lines[0]) || lines[1] != "" || !thirdPerson.MatchString(strings.Fields(lines[2])[0]) {
			t.Errorf("%s: %q", n, lines[:3])
		}
		for _, l := range lines {
			if len([]rune(l)) > module.MailWidth {
				t.Errorf("%s wide: %q", n, l)
			}
		}
	}
	th, _ := startest.NewThread(t)
	var idx strings.Builder
	th.Print = func(_ *starlark.Thread, msg string) { idx.WriteString(msg + "\n") }
	if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "help.star", "help()", starlib.Predeclared()); err != nil {
		t.Fatal(err)
	}
	for n := range plot.Module.Help {
		if !strings.Contains(idx.String(), plot.Module.Index[n]) {
			t.Errorf("index lacks %s", n)
		}
	}
}
