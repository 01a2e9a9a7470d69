package format_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/starlib"
	"netscript/starlib/format"
)

// evalNumbers evaluates expr with format() and round() predeclared.
func evalNumbers(expr string) (starlark.Value, error) {
	th := &starlark.Thread{Name: "numbers"}
	return starlark.EvalOptions(starlib.FileOptions(), th, "<expr>", expr, format.Module.Members)
}

// TestFormatMatchesPython checks format() against Python's own output.
func TestFormatMatchesPython(t *testing.T) {
	for _, c := range formatCases {
		expr := "format(" + c.x + ", " + starlark.String(c.spec).String() + ")"
		v, err := evalNumbers(expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if got, _ := starlark.AsString(v); got != c.want {
			t.Errorf("%s = %q, Python gives %q", expr, got, c.want)
		}
	}
}

// TestRoundMatchesPython checks round() against Python 3's: the value and
// whether it is an int or a float (str() shows which).
func TestRoundMatchesPython(t *testing.T) {
	for _, c := range roundCases {
		expr := "str(round(" + c.x + "))"
		if c.ndigits != "" {
			expr = "str(round(" + c.x + ", " + c.ndigits + "))"
		}
		v, err := evalNumbers(expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if got, _ := starlark.AsString(v); got != c.want {
			t.Errorf("%s = %s, Python gives %s", expr, got, c.want)
		}
	}
}

// TestNumbersBadInput: every malformed call is one clear line.
func TestNumbersBadInput(t *testing.T) {
	cases := []struct{ expr, want string }{
		{`format(1.5, "q")`, `format: spec "q": unknown format type "q"`},
		{`format(1.5, ".2q")`, `unknown format type "q"`},
		{`format("s", ".2f")`, `format: spec ".2f": "f" formats a number, got a string`},
		{`format("s", "+")`, `a string takes only fill, align, width and precision`},
		{`format(None, "d")`, `format: x must be a number or a string, got NoneType`},
		{`format(True, "d")`, `format: x must be a number or a string, got bool`},
		{`format(1.5, 2)`, `format: for parameter spec: got int, want string`},
		{`format(1.5, "d")`, `format: spec "d": "d" formats an int, got a float`},
		{`format(15, ".2d")`, `format: spec ".2d": an int takes no precision`},
		{`format(15, ",x")`, `grouping with "," does not go with "x"`},
		{`format(1.5, ".f")`, `a precision (digits) must follow the '.'`},
		{`format(1.5, "99999999f")`, `width 99999999 is too large`},
		{`format(1.5, ".2f.2f")`, `unknown format type "f.2f"`},
		{`format(int("1" + "0" * 400), "f")`, `int too large to convert to float`},
		{`format(-1, "zd")`, `z (no negative zero) is for floats, not an int`},
		{`format(1.5, ",n")`, `grouping with "," does not go with "n"`},
		{`format("s", "x=10")`, `'=' alignment is for numbers, not a string`},
		{`format(1, "s")`, `"s" formats a string, got an int`},
		{`round("2.5")`, `round: x must be an int or a float, got string "2.5"`},
		{`round(2.5, 1.0)`, `round: ndigits must be an int, got float`},
		{`round(float("inf"))`, `round: cannot round +inf to an int`},
		{`round(float("nan"))`, `round: cannot round nan to an int`},
		{`round()`, `round: missing argument for x`},
	}
	for _, c := range cases {
		_, err := evalNumbers(c.expr)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.expr, c.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line with %q", c.expr, msg, c.want)
		}
	}
}
