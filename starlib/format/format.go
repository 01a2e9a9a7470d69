// Package format is the module of format() and round(): numbers as text by
// Python's format-spec mini-language, and rounding as Python 3 rounds,
// both decided on the exact binary value.
package format

import (
	"fmt"
	"math"
	"math/big"

	"go.starlark.net/starlark"

	"netscript/starlib/module"
	"netscript/starlib/values"
)

// Module is format() and round(), with their help.
var Module = &module.Module{
	Name: "format",
	Members: starlark.StringDict{
		"format": starlark.NewBuiltin("format", formatBuiltin),
		"round":  starlark.NewBuiltin("round", roundBuiltin),
	},
	Help: doc,
	Index: map[string]string{
		"format": `a number as text by a Python format spec, such as ",.2f"`,
		"round":  "x rounded as Python 3 does: ties to even, on the exact value",
	},
	Keywords: map[string][]string{
		"format": {"x", "spec"},
		"round":  {"x", "ndigits"},
	},
}

// doc documents format() and round() for help().
var doc = map[string]string{
	"format": `format(x, spec="") -> str

Formats the number x by spec, Python's format-spec mini-language for
numbers: [[fill]align][sign][z][#][0][width][,|_][.precision][type].
  align      < left, > right (the default), ^ centre, = pad after the sign
  sign       + always, - only negative (the default), space: a space for +
  z          no minus sign on a zero; # 0x/0o/0b prefixes, keep the point
  0          pad with zeros after the sign; width is the least length
  , or _     group thousands (_ groups hex, octal and binary digits by 4)
  type       f fixed, e exponent, g general, % percent (x·100, f, "%"),
             d x X o b ints; F E G in capitals; n as d or g; none: as
             str(x), or g keeping a ".0" when a precision is given
Precision is digits after the point (f, e, %) or significant digits (g).
Rounding is correct on the exact binary value, ties to even, as Python's.
An int takes every type; a float no int type. A string takes fill, align
(left by default), width and precision (the most characters kept), to line
text up beside numbers.
  print("%s trans/s" % format(r.throughput, ",.2f"))   # 27,291.86 trans/s
  print(format("p99", "<8") + format(r.latency.p99, ">8.1f"))`,
	"round": `round(x, ndigits=None) -> number

Rounds x to ndigits decimal digits, as Python 3 does: ties go to the even
digit, decided on the exact binary value of x (so round(2.675, 2) is 2.67,
since 2.675 is stored as 2.67499999...). Without ndigits it returns an
int; with it, a number of x's type. A negative ndigits rounds to tens,
hundreds, ... For text with a fixed number of decimals, use format():
Starlark prints a float of 10^7 or more in exponent form.
  round(2.5), round(3.5), round(27291.8612, 2), round(1250, -2)
  # 2, 4, 27291.86, 1200`,
}

// formatBuiltin implements format(x, spec="").
func formatBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var spec string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x", &x, "spec?", &spec); err != nil {
		return nil, err
	}
	s, err := parseNumSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: spec %q: %w", b.Name(), spec, err)
	}
	var out string
	switch v := x.(type) {
	case starlark.Int:
		out, err = formatInt(v.BigInt(), s)
	case starlark.Float:
		out, err = formatFloat(float64(v), s)
	case starlark.String:
		out, err = formatString(string(v), s)
	default:
		return nil, fmt.Errorf("%s: x must be a number or a string, got %s %s", b.Name(), x.Type(), values.ShortRepr(x))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: spec %q: %w", b.Name(), spec, err)
	}
	return starlark.String(out), nil
}

// roundBuiltin implements round(x, ndigits=None).
func roundBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, nd starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x", &x, "ndigits?", &nd); err != nil {
		return nil, err
	}
	digits, given := 0, nd != starlark.None
	if given {
		n, ok := nd.(starlark.Int)
		if !ok {
			return nil, fmt.Errorf("%s: ndigits must be an int, got %s", b.Name(), nd.Type())
		}
		i, ok := n.Int64()
		if !ok {
			return nil, fmt.Errorf("%s: ndigits %s is out of range", b.Name(), n)
		}
		digits = int(max(min(i, 1000), -1000)) // beyond ±1000 nothing changes
	}
	switch v := x.(type) {
	case starlark.Int:
		if !given || digits >= 0 {
			return v, nil
		}
		return starlark.MakeBigInt(roundBigInt(v.BigInt(), -digits)), nil
	case starlark.Float:
		f := float64(v)
		if !given {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%s: cannot round %s to an int", b.Name(), v)
			}
			i, _ := new(big.Float).SetFloat64(math.RoundToEven(f)).Int(nil)
			return starlark.MakeBigInt(i), nil
		}
		return starlark.Float(roundFloat(f, digits)), nil
	}
	return nil, fmt.Errorf("%s: x must be an int or a float, got %s %s", b.Name(), x.Type(), values.ShortRepr(x))
}

// roundBigInt rounds x to a multiple of 10^k, ties to even.
func roundBigInt(x *big.Int, k int) *big.Int {
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
	q := new(big.Rat).SetFrac(x, unit)
	return new(big.Int).Mul(ratToEven(q), unit)
}

// roundFloat rounds f to n decimal digits (n < 0: to 10^-n) on its exact
// binary value, ties to even, and returns the float nearest that.
func roundFloat(f float64, n int) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		return f
	}
	if n > 330 { // finer than the smallest float: nothing to round
		return f
	}
	exact := new(big.Rat).SetFloat64(f)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(n, -n))), nil))
	if n >= 0 {
		exact.Mul(exact, scale)
	} else {
		exact.Quo(exact, scale)
	}
	r := new(big.Rat).SetInt(ratToEven(exact))
	if n >= 0 {
		r.Quo(r, scale)
	} else {
		r.Mul(r, scale)
	}
	out, _ := r.Float64()
	if out == 0 {
		return math.Copysign(0, f)
	}
	return out
}

// ratToEven is the integer nearest q, ties to even.
func ratToEven(q *big.Rat) *big.Int {
	num, den := q.Num(), q.Denom()
	quo, rem := new(big.Int).QuoRem(num, den, new(big.Int)) // truncated
	twice := new(big.Int).Abs(rem)
	twice.Lsh(twice, 1)
	switch c := twice.Cmp(den); {
	case c > 0 || c == 0 && quo.Bit(0) == 1:
		if num.Sign() < 0 {
			quo.Sub(quo, big.NewInt(1))
		} else {
			quo.Add(quo, big.NewInt(1))
		}
	}
	return quo
}
