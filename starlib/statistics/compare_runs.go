package statistics

import (
	"fmt"

	"go.starlark.net/starlark"

	"netscript/engine/stats"
	"netscript/session"
)

// warnFewRuns warns on stderr, once per script, when compare() runs each
// side fewer than stats.MinCompareRuns times: below it, Welch's interval
// calls identical configurations different more often than its level says
// when their noise differs. where is the script position of the call.
func warnFewRuns(env *session.Session, runs int, where string) {
	if env.Stderr == nil || runs >= stats.MinCompareRuns {
		return
	}
	at := ""
	if where != "" {
		at = " at " + where
	}
	text := fmt.Sprintf("compare()%s: runs=%d: with fewer than %d runs each, identical configurations whose noise differs "+
		"come out significant more often than the level says (simulated at level 95 with runs=2: up to 6.2 %% of comparisons "+
		"instead of 5 %%); use runs=%d or more", at, runs, stats.MinCompareRuns, stats.MinCompareRuns)
	if !env.FirstWarning(text) {
		return // said once per script
	}
	fmt.Fprintf(env.Stderr, "netscript: warning: %s (said once)\n", text)
}

// callerPos is the script position of the builtin's caller, or "".
func callerPos(th *starlark.Thread) string {
	if th.CallStackDepth() > 1 {
		return th.CallFrame(1).Pos.String()
	}
	return ""
}
