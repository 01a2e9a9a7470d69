package script

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"netscript/session"
)

// FormatError renders a script's error for a person: a syntax or name
// error as file:line:col, the message, the offending line and a caret
// under the column; a runtime error at the top level as one line with its
// position; one deeper down as the Starlark backtrace. source returns the
// text of a file named in a position (nil if unknown).
func FormatError(err error, source func(file string) []byte) string {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		stack := ee.CallStack
		// A builtin's own frame has no position; skip it.
		if len(stack) > 0 && stack[len(stack)-1].Pos.Filename() == "<builtin>" {
			stack = stack[:len(stack)-1]
		}
		var text string
		if len(stack) <= 1 {
			pos := ""
			if len(stack) == 1 {
				pos = stack[0].Pos.String() + ": "
			}
			text = pos + ee.Msg
		} else {
			text = backtrace(ee)
		}
		// A module that load() could not compile: show where.
		var se syntax.Error
		if errors.As(err, &se) {
			text += excerptAt(se.Pos, source)
		}
		var re resolve.ErrorList
		if errors.As(err, &re) {
			text += excerptAt(re[0].Pos, source)
		}
		return text
	}
	var se syntax.Error
	if errors.As(err, &se) {
		return se.Pos.String() + ": " + se.Msg + excerptAt(se.Pos, source)
	}
	var re resolve.ErrorList
	if errors.As(err, &re) {
		var parts []string
		for i, e := range re {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("(and %d more)", len(re)-3))
				break
			}
			parts = append(parts, e.Pos.String()+": "+e.Msg+excerptAt(e.Pos, source))
		}
		return strings.Join(parts, "\n")
	}
	return err.Error()
}

// excerptAt returns "\n" + the line at pos + "\n" + a caret under its
// column, indented by four spaces; "" when the line is not known.
func excerptAt(pos syntax.Position, source func(file string) []byte) string {
	if source == nil || pos.Line < 1 {
		return ""
	}
	src := source(pos.Filename())
	if src == nil {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	n, col := int(pos.Line), int(pos.Col)
	if n > len(lines) || strings.TrimSpace(lines[n-1]) == "" {
		// At the end of the text (an unclosed bracket): point past the
		// last line that has something on it.
		for n = min(n, len(lines)) - 1; n >= 1 && strings.TrimSpace(lines[n-1]) == ""; n-- {
		}
		if n < 1 {
			return ""
		}
		col = utf8.RuneCountInString(strings.TrimRight(lines[n-1], " \t\r")) + 1
	}
	line := strings.TrimRight(lines[n-1], "\r")
	var caret strings.Builder
	c := 1
	for _, r := range line {
		if c >= col {
			break
		}
		if r == '\t' {
			caret.WriteRune('\t')
		} else {
			caret.WriteRune(' ')
		}
		c++
	}
	if c < col {
		caret.WriteString(strings.Repeat(" ", col-c))
	}
	return "\n    " + line + "\n    " + caret.String() + "^"
}

// Source returns a function that gives sc's text for its own name and
// that of a module load() read, for FormatError. It reads nothing from
// disk: a file the script could not load is never quoted.
func Source(sc *session.Script) func(file string) []byte {
	return func(file string) []byte {
		if file == sc.Name {
			return sc.Src
		}
		return sc.Modules[file]
	}
}
