package script

import (
	"strings"

	"go.starlark.net/starlark"
)

// backtrace is ee.Backtrace() with the failing builtin named once: the
// builtin's message starts with its own name already, so the last line
// reads "Error: tcp_rr: ..." rather than "Error in tcp_rr: tcp_rr: ...".
func backtrace(ee *starlark.EvalError) string {
	text := ee.Backtrace()
	n := len(ee.CallStack)
	if n == 0 {
		return text
	}
	name := ee.CallStack[n-1].Name
	twice := "Error in " + name + ": " + name + ": "
	if i := strings.LastIndex(text, twice); i >= 0 {
		text = text[:i] + "Error: " + name + ": " + text[i+len(twice):]
	}
	return text
}
