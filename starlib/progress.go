package starlib

import (
	"netscript/engine/client"
)

// Reporter shows the progress of long work while it runs (on stderr when
// stderr is a terminal). Env.Progress holds one; nil means no display.
type Reporter interface {
	// Test reports a running test's counts so far.
	Test(p client.Progress)
	// Iteration reports that iteration k of at most max is starting
	// (confidence() and compare()).
	Iteration(what string, k, max int)
	// Done says the current test ended, so a live line can be cleared.
	Done()
}

// progressOf returns the client's progress callback for env, or nil.
func progressOf(env *Env) func(client.Progress) {
	if env.Progress == nil {
		return nil
	}
	return env.Progress.Test
}
