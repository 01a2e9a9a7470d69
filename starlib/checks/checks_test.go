package checks

import (
	"testing"

	"go.starlark.net/starlark"

	"netscript/starlib/values"
)

// TestEvaluate holds each kind of value a check takes: its verdict, its
// measured text and its bound.
func TestEvaluate(t *testing.T) {
	cmp := func(delta, low, high float64, sig bool) starlark.Value {
		f := values.NewFields("comparison")
		f.Set("delta_pct", starlark.Float(delta))
		f.Set("low_pct", starlark.Float(low))
		f.Set("high_pct", starlark.Float(high))
		f.Set("significant", starlark.Bool(sig))
		return f
	}
	n := starlark.None
	cases := []struct {
		name               string
		value, least, most starlark.Value
		pass               bool
		measured, bound    string
	}{
		{"at least, met", starlark.Float(27291.86), starlark.MakeInt(25000), n, true, "27291.86", ">= 25000"},
		{"at least, missed", starlark.MakeInt(24999), starlark.MakeInt(25000), n, false, "24999", ">= 25000"},
		{"duration bound", starlark.Float(180.5), n, starlark.String("200us"), true, "180.5us", "<= 200us"},
		{"duration bound, ms", starlark.Float(2500), n, starlark.String("2ms"), false, "2500us", "<= 2ms"},
		{"both", starlark.MakeInt(5), starlark.MakeInt(1), starlark.MakeInt(4), false, "5", ">= 1 and <= 4"},
		{"condition true", starlark.True, n, n, true, "True", "True"},
		{"condition false", starlark.False, n, n, false, "False", "True"},
		{"none", n, starlark.MakeInt(1), n, false, "None (nothing measured)", ">= 1"},
		{"nan", starlark.Float(nan()), starlark.MakeInt(1), n, false, "NaN", ">= 1"},
		{"compare within", cmp(-3, -5, -1, true), starlark.MakeInt(-10), n, true, "delta -3 % [-5, -1]", "delta >= -10 % (not significantly beyond)"},
		{"compare beyond", cmp(-8, -9, -7, true), starlark.MakeInt(-2), n, false, "delta -8 % [-9, -7]", "delta >= -2 % (not significantly beyond)"},
		{"compare not significant", cmp(-8, -20, 4, false), starlark.MakeInt(-2), n, true, "delta -8 % [-20, 4]", "delta >= -2 % (not significantly beyond)"},
		{"compare at most", cmp(9, 6, 12, true), n, starlark.MakeInt(5), false, "delta 9 % [6, 12]", "delta <= 5 % (not significantly beyond)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := evaluate(c.name, c.value, c.least, c.most, n)
			if err != nil {
				t.Fatal(err)
			}
			if got.Pass != c.pass || got.Measured != c.measured || got.Bound != c.bound {
				t.Errorf("got pass %v %q %q, want %v %q %q", got.Pass, got.Measured, got.Bound, c.pass, c.measured, c.bound)
			}
		})
	}
}

// TestEvaluateRefuses holds the mistakes check() refuses with a reason.
func TestEvaluateRefuses(t *testing.T) {
	n := starlark.None
	cases := []struct {
		name               string
		value, least, most starlark.Value
		want               string
	}{
		{"no bound", starlark.MakeInt(1), n, n, "a int needs at_least= or at_most="},
		{"bad duration", starlark.MakeInt(1), starlark.String("fast"), n, `at_least: "fast" is neither a number nor a duration such as "200us"`},
		{"bound on a condition", starlark.True, starlark.MakeInt(1), n, "a condition (True) takes no at_least or at_most"},
		{"a string", starlark.String("x"), starlark.MakeInt(1), n, "value must be a number, a bool, a result or a comparison, got string"},
		{"a list bound", starlark.MakeInt(1), starlark.NewList(nil), n, "at_least must be a number or a duration, got list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := evaluate(c.name, c.value, c.least, c.most, n)
			if err == nil || err.Error() != c.want {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

func nan() float64 { var z float64; return z / z }
