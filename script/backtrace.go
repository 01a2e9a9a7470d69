package script

import (
	"fmt"
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
	return elideRepeats(text)
}

// elideRepeats folds a run of identical lines (a deep recursion's frames,
// thousands of them) into the first, a line saying how many more, and the
// last, so an error is a screenful rather than a hundred thousand lines.
func elideRepeats(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j] == lines[i] {
			j++
		}
		out = append(out, lines[i])
		if n := j - i; n > 3 {
			out = append(out, fmt.Sprintf("  ... the line above %d more times", n-2), lines[i])
		} else {
			out = append(out, lines[i+1:j]...)
		}
		i = j
	}
	return strings.Join(out, "\n")
}
