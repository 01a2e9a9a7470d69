// Package checks is the module of check(): a finding stated as a check
// (a name, a measured value and a bound) that passes or fails, is printed
// as one line and kept in the run's session, where the exit status,
// --junit, --json-lines, records and `netscript monitor` read it.
package checks

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/session"
	"netscript/starlib/module"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// Module is check(), with its help.
var Module = &module.Module{
	Name:    "checks",
	Members: starlark.StringDict{"check": starlark.NewBuiltin("check", checkBuiltin)},
	Help:    doc,
	Index: map[string]string{
		"check": "a finding that passes or fails: sets the exit status, --junit",
	},
	Keywords: map[string][]string{"check": {"name", "value", "at_least", "at_most", "result"}},
}

var doc = map[string]string{
	"check": `check(name, value, at_least=None, at_most=None, result=None) -> bool

States a check: value is held to its bound, the check passes or fails,
one line says so, and it is kept in the run: a run with a failed check
exits with status 4 (docs/ci.md), --junit writes one test case per
check, --json-lines a line, --record the record. Returns whether it passed.
value is one of:
  a number   held to at_least and/or at_most (at least one is needed); a
             bound may be a duration such as "200us" or "2ms", read in us
             as latencies are
  a bool     a condition, passing when True (no bound)
  a result   passes when its test ran (ok); a failed test fails the check
  a compare() comparison: fails only when its whole confidence interval
             of delta_pct is below at_least (or above at_most) percent
  None       fails: nothing was measured (a failed test's figures)
result=, the test the figure came from: when that test failed, the check
fails with its error as the measured value.
  r = tcp_rr(duration=5)
  check("tcp_rr rate", r.throughput, at_least=25000, result=r)
  check("tcp_rr p99", r.latency.p99, at_most="200us", result=r)
  c = compare(lambda: tcp_rr(duration=2), lambda: tcp_rr(duration=2, burst=4))
  check("burst not slower", c, at_least=-2)`,
}

// checkBuiltin implements check().
func checkBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var value starlark.Value
	var least, most, res starlark.Value = starlark.None, starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "value", &value,
		"at_least?", &least, "at_most?", &most, "result?", &res); err != nil {
		return nil, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("%s: name must not be empty", b.Name())
	}
	sess, err := thread.Session(th)
	if err != nil {
		return nil, err
	}
	c, err := evaluate(name, value, least, most, res)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", b.Name(), name, err)
	}
	if fr := th.CallFrame(1); fr.Pos.IsValid() {
		c.Where = fr.Pos.String()
	}
	sess.AddCheck(c)
	fmt.Fprintln(sess.Stdout, Line(c))
	return starlark.Bool(c.Pass), nil
}

// Line is the one line a check prints: "check PASS name: measured bound".
func Line(c session.Check) string {
	verdict := "PASS"
	if !c.Pass {
		verdict = "FAIL"
	}
	return fmt.Sprintf("check %s %s: %s (wanted %s)", verdict, c.Name, c.Measured, c.Bound)
}

// bound is one side of a check: the limit, in the value's unit.
type bound struct {
	given bool
	v     float64
	text  string
	unit  string
}

func readBound(kw string, v starlark.Value) (bound, error) {
	if v == starlark.None {
		return bound{}, nil
	}
	if s, ok := v.(starlark.String); ok {
		d, err := time.ParseDuration(strings.ReplaceAll(string(s), "µ", "u"))
		if err != nil {
			return bound{}, fmt.Errorf("%s: %q is neither a number nor a duration such as \"200us\"", kw, string(s))
		}
		return bound{given: true, v: float64(d) / float64(time.Microsecond), text: string(s), unit: "us"}, nil
	}
	f, ok := values.Number(v)
	if !ok || math.IsNaN(f) {
		return bound{}, fmt.Errorf("%s must be a number or a duration, got %s", kw, v.Type())
	}
	return bound{given: true, v: f, text: num(f)}, nil
}

// evaluate decides a check.
func evaluate(name string, value, least, most, res starlark.Value) (session.Check, error) {
	c := session.Check{Name: name}
	lo, err := readBound("at_least", least)
	if err != nil {
		return c, err
	}
	hi, err := readBound("at_most", most)
	if err != nil {
		return c, err
	}
	var parts []string
	if lo.given {
		parts = append(parts, ">= "+lo.text)
		c.Unit = lo.unit
	}
	if hi.given {
		parts = append(parts, "<= "+hi.text)
		c.Unit = max(c.Unit, hi.unit)
	}
	c.Bound = strings.Join(parts, " and ")
	if r := resultOf(res); r != nil {
		c.Test, c.Brand, c.Host = r.Test, r.Brand, hostOf(r)
	} else if res != starlark.None {
		if _, ok := failure(res); !ok {
			return c, fmt.Errorf("result= must be a test's result, got %s", res.Type())
		}
	}
	if msg, failed := failure(res); failed {
		c.Measured, c.Error = "failed: "+msg, msg
		if c.Bound == "" {
			c.Bound = "a test that runs"
		}
		return c, nil
	}
	switch v := value.(type) {
	case starlark.NoneType:
		c.Measured, c.Error = "None (nothing measured)", "nothing measured"
		if c.Bound == "" {
			c.Bound = "a value"
		}
		return c, nil
	case starlark.Bool:
		if lo.given || hi.given {
			return c, fmt.Errorf("a condition (%s) takes no at_least or at_most", v)
		}
		c.Pass, c.Measured, c.Bound = bool(v), v.String(), "True"
		one := 0.0
		if v {
			one = 1
		}
		c.Value = &one
		return c, nil
	}
	if r := resultOf(value); r != nil {
		c.Test, c.Brand, c.Host = r.Test, r.Brand, hostOf(r)
		if msg, failed := failure(value); failed {
			c.Measured, c.Error, c.Bound = "failed: "+msg, msg, "a test that runs"
			return c, nil
		}
		if lo.given || hi.given {
			return c, fmt.Errorf("a result takes no bound: hold one of its figures to it (r.throughput)")
		}
		t := r.Throughput
		c.Pass, c.Value, c.Measured, c.Bound = true, &t, num(t)+" "+r.Units, "a test that runs"
		return c, nil
	}
	if !lo.given && !hi.given {
		return c, fmt.Errorf("a %s needs at_least= or at_most=", value.Type())
	}
	if cmp, ok := comparison(value); ok {
		c.Unit = "%"
		c.Bound = strings.ReplaceAll(strings.ReplaceAll(c.Bound, ">= ", "delta >= "), "<= ", "delta <= ") + " % (not significantly beyond)"
		d := cmp.delta
		c.Value = &d
		c.Measured = fmt.Sprintf("delta %s %% [%s, %s]", num(cmp.delta), num(cmp.low), num(cmp.high))
		c.Pass = !(lo.given && cmp.significant && cmp.high < lo.v) && !(hi.given && cmp.significant && cmp.low > hi.v)
		return c, nil
	}
	f, ok := values.Number(value)
	if !ok {
		return c, fmt.Errorf("value must be a number, a bool, a result or a comparison, got %s", value.Type())
	}
	c.Value = &f
	c.Measured = num(f)
	if c.Unit != "" {
		c.Measured += c.Unit
	}
	c.Pass = !math.IsNaN(f) && (!lo.given || f >= lo.v) && (!hi.given || f <= hi.v)
	return c, nil
}

// resultOf returns the test result v wraps, or nil.
func resultOf(v starlark.Value) *result.Result {
	if r, ok := v.(*values.Record); ok {
		if res, ok := r.Value().(*result.Result); ok {
			return res
		}
	}
	return nil
}

// failure reports whether v is a result of a test that failed (its ok
// field is False) and its error.
func failure(v starlark.Value) (string, bool) {
	a, ok := v.(starlark.HasAttrs)
	if !ok {
		return "", false
	}
	okv, err := a.Attr("ok")
	if err != nil || okv == nil || okv.Truth() {
		return "", false
	}
	msg := "failed"
	if e, err := a.Attr("error"); err == nil && e != nil && e != starlark.None {
		if s, ok := starlark.AsString(e); ok {
			msg = s
		} else {
			msg = e.String()
		}
	}
	return msg, true
}

type cmpFigures struct {
	delta, low, high float64
	significant      bool
}

// comparison reads the figures of a compare() value.
func comparison(v starlark.Value) (cmpFigures, bool) {
	a, ok := v.(starlark.HasAttrs)
	if !ok || v.Type() != "comparison" {
		return cmpFigures{}, false
	}
	get := func(n string) float64 {
		x, err := a.Attr(n)
		if err != nil || x == nil {
			return math.NaN()
		}
		f, _ := values.Number(x)
		return f
	}
	sig, _ := a.Attr("significant")
	return cmpFigures{delta: get("delta_pct"), low: get("low_pct"), high: get("high_pct"),
		significant: sig != nil && bool(sig.Truth())}, true
}

// num writes a figure as the check line shows it: up to 2 decimals.
func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// hostOf is the server a result's test ran against ("" for the embedded
// one).
func hostOf(r *result.Result) string {
	return r.Config.Host
}
