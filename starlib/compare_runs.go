package starlib

import (
	"fmt"
	"io"

	"go.starlark.net/starlark"

	"netscript/engine/stats"
)

// warnFewRuns warns on w when compare() runs each side fewer than
// stats.MinCompareRuns times: below it, Welch's interval calls identical
// configurations different more often than its level says when their noise
// differs. where is the script position of the call.
func warnFewRuns(w io.Writer, runs int, where string) {
	if w == nil || runs >= stats.MinCompareRuns {
		return
	}
	at := ""
	if where != "" {
		at = " at " + where
	}
	fmt.Fprintf(w, "warning: compare()%s: runs=%d: with fewer than %d runs each, identical configurations whose noise differs "+
		"come out significant more often than the level says (at level 95, up to 6.2 %% of comparisons at runs=2, 5.8 %% at runs=3, "+
		"instead of 5 %%); use runs=%d or more\n", at, runs, stats.MinCompareRuns, stats.MinCompareRuns)
}

// callerPos is the script position of the builtin's caller, or "".
func callerPos(th *starlark.Thread) string {
	if th.CallStackDepth() > 1 {
		return th.CallFrame(1).Pos.String()
	}
	return ""
}
