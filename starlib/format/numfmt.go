package format

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// numSpec is a parsed format spec of Python's mini-language for numbers:
// [[fill]align][sign][z][#][0][width][grouping][.precision][type].
type numSpec struct {
	fill      rune
	align     byte // '<', '>', '^', '=' or 0 (right for numbers)
	sign      byte // '+', '-', ' ' or 0 ('-')
	noNegZero bool // z
	alt       bool // #
	width     int
	group     byte // ',', '_' or 0
	prec      int  // -1: not given
	typ       byte // 0 or one of dxXobneEfFgG% or s
	zero      bool // the 0 flag: pad with zeros after the sign
	alignSet  bool // align was written, not implied by the 0 flag
}

// maxSpecNumber bounds width and precision, so a typo cannot ask for a
// gigabyte of padding.
const maxSpecNumber = 10000

// parseNumSpec reads spec; errors say what is wrong in user terms.
func parseNumSpec(spec string) (numSpec, error) {
	s := numSpec{prec: -1}
	rest := spec
	isAlign := func(c byte) bool { return c == '<' || c == '>' || c == '^' || c == '=' }
	if r, n := utf8.DecodeRuneInString(rest); n > 0 && len(rest) > n && isAlign(rest[n]) {
		s.fill, s.align, rest = r, rest[n], rest[n+1:]
	} else if len(rest) > 0 && isAlign(rest[0]) {
		s.align, rest = rest[0], rest[1:]
	}
	s.alignSet = s.align != 0
	if len(rest) > 0 && (rest[0] == '+' || rest[0] == '-' || rest[0] == ' ') {
		s.sign, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 && rest[0] == 'z' {
		s.noNegZero, rest = true, rest[1:]
	}
	if len(rest) > 0 && rest[0] == '#' {
		s.alt, rest = true, rest[1:]
	}
	if len(rest) > 0 && rest[0] == '0' {
		s.zero = true
		if s.fill == 0 {
			s.fill = '0'
			if s.align == 0 {
				s.align = '='
			}
		}
		rest = rest[1:]
	}
	var err error
	if s.width, rest, err = specDigits(rest, "width"); err != nil {
		return s, err
	}
	if len(rest) > 0 && (rest[0] == ',' || rest[0] == '_') {
		s.group, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 && rest[0] == '.' {
		if len(rest) == 1 || rest[1] < '0' || rest[1] > '9' {
			return s, fmt.Errorf("a precision (digits) must follow the '.'")
		}
		if s.prec, rest, err = specDigits(rest[1:], "precision"); err != nil {
			return s, err
		}
	}
	if len(rest) == 1 && strings.IndexByte("dxXobneEfFgG%s", rest[0]) >= 0 {
		s.typ, rest = rest[0], ""
	}
	if rest != "" {
		return s, fmt.Errorf("unknown format type %q; numbers take d x X o b n (ints) and e E f F g G %% (any number), s (strings), after [[fill]align][sign][z][#][0][width][,|_][.precision]", rest)
	}
	if s.fill == 0 {
		s.fill = ' '
	}
	return s, nil
}

// specDigits reads a run of decimal digits at the start of s (0 if none).
func specDigits(s, what string) (int, string, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, s, nil
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n > maxSpecNumber {
		return 0, s, fmt.Errorf("%s %s is too large (at most %d)", what, s[:i], maxSpecNumber)
	}
	return n, s[i:], nil
}

// formatString lays out a string by s: fill, align (left by default),
// width and precision (the most characters kept); nothing else applies.
func formatString(x string, s numSpec) (string, error) {
	switch {
	case s.typ != 0 && s.typ != 's':
		return "", fmt.Errorf("%s formats a number, got a string", typeName(s.typ))
	case s.sign != 0 || s.noNegZero || s.alt || s.group != 0:
		return "", fmt.Errorf("a string takes only fill, align, width and precision")
	case s.align == '=' && s.alignSet:
		return "", fmt.Errorf("'=' alignment is for numbers, not a string")
	}
	if s.align == 0 || s.align == '=' {
		s.align = '<'
	}
	if s.prec >= 0 && utf8.RuneCountInString(x) > s.prec {
		x = string([]rune(x)[:s.prec])
	}
	return layout(false, "", x, "", 0, s), nil
}

// formatInt lays out an integer by s. Float types convert it first.
func formatInt(x *big.Int, s numSpec) (string, error) {
	switch s.typ {
	case 's':
		return "", fmt.Errorf("\"s\" formats a string, got an int")
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		f, _ := new(big.Float).SetInt(x).Float64()
		if math.IsInf(f, 0) {
			return "", fmt.Errorf("int too large to convert to float for %q", string(s.typ))
		}
		return formatFloat(f, s)
	}
	if s.prec >= 0 {
		return "", fmt.Errorf("an int takes no precision with %s; use a float type such as \".2f\"", typeName(s.typ))
	}
	if s.noNegZero {
		return "", fmt.Errorf("z (no negative zero) is for floats, not an int")
	}
	base, prefix := 10, ""
	switch s.typ {
	case 'x', 'X':
		base, prefix = 16, "0x"
	case 'o':
		base, prefix = 8, "0o"
	case 'b':
		base, prefix = 2, "0b"
	}
	if s.typ == 'X' {
		prefix = "0X"
	}
	if !s.alt {
		prefix = ""
	}
	if s.group == ',' && base != 10 || s.group != 0 && s.typ == 'n' {
		return "", fmt.Errorf("grouping with %q does not go with %s", string(s.group), typeName(s.typ))
	}
	digits := new(big.Int).Abs(x).Text(base)
	if s.typ == 'X' {
		digits = strings.ToUpper(digits)
	}
	every := 3
	if base != 10 {
		every = 4
	}
	return layout(x.Sign() < 0, prefix, digits, "", every, s), nil
}

// typeName names a format type in messages.
func typeName(t byte) string {
	if t == 0 {
		return "no type"
	}
	return fmt.Sprintf("%q", string(t))
}

// formatFloat lays out a float by s, as Python's float.__format__.
func formatFloat(f float64, s numSpec) (string, error) {
	switch s.typ {
	case 'd', 'x', 'X', 'o', 'b':
		return "", fmt.Errorf("%q formats an int, got a float; use \".0f\" or int(x)", string(s.typ))
	case 's':
		return "", fmt.Errorf("\"s\" formats a string, got a float")
	}
	if s.group != 0 && s.typ == 'n' {
		return "", fmt.Errorf("grouping with %q does not go with \"n\"", string(s.group))
	}
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	if s.typ == '%' {
		a *= 100 // in floating point, as Python: a huge x becomes inf%
	}
	upper := s.typ == 'E' || s.typ == 'F' || s.typ == 'G'
	if math.IsInf(a, 0) || math.IsNaN(a) {
		body := "inf"
		if math.IsNaN(a) {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		if s.typ == '%' {
			body += "%"
		}
		s.group = 0
		return layout(neg, "", body, "", 3, s), nil
	}
	var body, suffix string
	p := s.prec
	switch s.typ {
	case 'f', 'F', '%':
		if p < 0 {
			p = 6
		}
		if s.typ == '%' {
			suffix = "%"
		}
		body = strconv.FormatFloat(a, 'f', p, 64)
		if s.alt && p == 0 {
			body += "."
		}
	case 'e', 'E':
		if p < 0 {
			p = 6
		}
		body = strconv.FormatFloat(a, 'e', p, 64)
		if s.alt && p == 0 {
			body = body[:1] + "." + body[1:]
		}
	case 'g', 'G', 'n':
		if p < 0 {
			p = 6
		}
		body = generalFloat(a, max(p, 1), s.alt, false)
	default: // no type
		if p < 0 {
			body = reprFloat(a)
			if s.alt && !strings.Contains(body, ".") { // 1e+16 is 1.e+16
				i := strings.IndexByte(body, 'e')
				body = body[:i] + "." + body[i:]
			}
		} else {
			body = generalFloat(a, max(p, 1), s.alt, true)
		}
	}
	if upper {
		body = strings.ToUpper(body)
	}
	if neg && s.noNegZero && allZeroDigits(body) {
		neg = false
	}
	return layout(neg, "", body, suffix, 3, s), nil
}

// allZeroDigits reports whether the mantissa of body has only zeros.
func allZeroDigits(body string) bool {
	m, _, _ := strings.Cut(strings.ToLower(body), "e")
	return strings.Trim(m, "0.") == ""
}

// generalFloat is the 'g' layout of a ≥ 0 with p significant digits; with
// dot0 (no type and a precision), fixed notation keeps a digit after the
// point and gives way to exponent notation one digit earlier.
func generalFloat(a float64, p int, alt, dot0 bool) string {
	e := strconv.FormatFloat(a, 'e', p-1, 64)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	limit := p
	if dot0 {
		limit = p - 1
	}
	var out string
	if exp >= -4 && exp < limit {
		out = strconv.FormatFloat(a, 'f', p-1-exp, 64)
	} else {
		out = e
	}
	if !alt {
		out = trimZeros(out)
	} else if !strings.Contains(out, ".") {
		if j := strings.IndexByte(out, 'e'); j >= 0 {
			out = out[:j] + "." + out[j:]
		} else {
			out += "."
		}
	}
	if dot0 && !strings.ContainsAny(out, ".e") {
		out += ".0"
	}
	return out
}

// trimZeros drops the trailing zeros of the mantissa and a bare point.
func trimZeros(s string) string {
	m, exp, hasExp := strings.Cut(s, "e")
	if strings.Contains(m, ".") {
		m = strings.TrimRight(strings.TrimRight(m, "0"), ".")
	}
	if hasExp {
		return m + "e" + exp
	}
	return m
}

// reprFloat is Python's repr of a ≥ 0: the shortest digits that read back
// as a, in exponent notation below 1e-4 and from 1e16.
func reprFloat(a float64) string {
	e := strconv.FormatFloat(a, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if a != 0 && (exp < -4 || exp >= 16) {
		return e
	}
	f := strconv.FormatFloat(a, 'f', -1, 64)
	if !strings.Contains(f, ".") {
		f += ".0"
	}
	return f
}

// layout joins sign, prefix, digits (grouped) and suffix, and pads the
// whole to the width as the spec aligns it.
func layout(neg bool, prefix, body, suffix string, every int, s numSpec) string {
	sign := ""
	switch {
	case neg:
		sign = "-"
	case s.sign == '+':
		sign = "+"
	case s.sign == ' ':
		sign = " "
	}
	if s.group != 0 {
		n := 0
		for n < len(body) && isDigit(body[n], every == 4) {
			n++
		}
		intPart, frac := body[:n], body[n:]
		grouped := groupDigits(intPart, s.group, every)
		if s.fill == '0' && s.align == '=' {
			// Zero padding is grouped too, as Python does.
			need := s.width - len(sign) - len(prefix) - len(frac) - len(suffix)
			for len(grouped) < need {
				intPart = "0" + intPart
				grouped = groupDigits(intPart, s.group, every)
			}
		}
		body = grouped + frac
	}
	text := sign + prefix + body + suffix
	pad := s.width - utf8.RuneCountInString(text)
	if pad <= 0 {
		return text
	}
	fill := func(n int) string { return strings.Repeat(string(s.fill), n) }
	switch s.align {
	case '<':
		return text + fill(pad)
	case '^':
		return fill(pad/2) + text + fill(pad-pad/2)
	case '=':
		return sign + prefix + fill(pad) + body + suffix
	}
	return fill(pad) + text
}

// isDigit reports whether c is a decimal digit, or with hex a hexadecimal
// one (the 'e' of an exponent is never reached: grouping by 4 is for ints).
func isDigit(c byte, hex bool) bool {
	return c >= '0' && c <= '9' || hex && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
}

// groupDigits inserts sep every `every` digits from the right.
func groupDigits(digits string, sep byte, every int) string {
	if len(digits) <= every {
		return digits
	}
	var b strings.Builder
	first := len(digits) % every
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += every {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+every])
	}
	return b.String()
}
