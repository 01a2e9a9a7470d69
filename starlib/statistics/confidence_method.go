package statistics

import (
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/stats"
	"netscript/starlib/values"
)

// coverageWarning is the sentence netperf's rule adds to its warning: it
// says what the rule costs even when it is met.
const coverageWarning = "!!! This rule stops when the sample happens to look tight, so its interval covers\n" +
	"!!! the mean less often than its level; method=\"two_stage\" keeps the level.\n"

// methodWarning adds to the warning of a target not met what the rule
// that ran says about it.
func methodWarning(b *strings.Builder, c *stats.Confidence) {
	if c.Method != stats.MethodTwoStage {
		b.WriteString(coverageWarning)
		return
	}
	planned := strconv.Itoa(c.Planned)
	if c.Planned > stats.MaxIterationsLimit {
		planned = "more than " + strconv.Itoa(stats.MaxIterationsLimit)
	}
	fmt.Fprintf(b, "!!! The first stage's %d iterations called for %s in all; max is %d.\n", c.Spec.Min, planned, c.Spec.Max)
}

// setMethod sets the fields of a confidence value that say which rule ran.
func setMethod(f *values.Fields, c *stats.Confidence) {
	f.Set("method", starlark.String(c.Method))
	var planned starlark.Value = starlark.None
	if c.Method == stats.MethodTwoStage {
		planned = starlark.MakeInt(c.Planned)
	}
	f.Set("planned", planned)
}
