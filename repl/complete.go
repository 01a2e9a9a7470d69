package repl

import (
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"netscript/starlib"
	"netscript/starlib/values"
)

// keywords of the Starlark language, completed like names.
var keywords = []string{"and", "break", "continue", "def", "elif", "else", "for", "if", "in",
	"lambda", "load", "not", "or", "pass", "return", "while", "None", "True", "False"}

// indent is what Tab inserts at the start of a line.
const indent = "    "

// complete is liner's word completer: for the word before the cursor it
// returns the text before the word, the candidates, and the text after the
// cursor.
func (s *console) complete(line string, pos int) (string, []string, string) {
	runes := []rune(line)
	before, tail := string(runes[:pos]), string(runes[pos:])
	return Complete(s.globals, before, tail)
}

// Complete completes the word that ends before, given the session's
// globals:
//   - after a dot, the fields of the value the dotted name holds
//     (r.lat → r.latency, r.latency.p → r.latency.p50 ...);
//   - inside a call of a builtin with keyword options, those options
//     (tcp_rr(dur → tcp_rr(duration=), then names;
//   - elsewhere, globals, builtins and keywords.
//
// At the start of a line (only spaces before the cursor) Tab indents.
func Complete(globals starlark.StringDict, before, tail string) (string, []string, string) {
	if strings.TrimSpace(before) == "" {
		return "", []string{before + indent}, tail
	}
	i := len(before)
	for i > 0 && isWordByte(before[i-1]) {
		i--
	}
	head, word := before[:i], before[i:]
	if i > 0 && (before[i-1] == '"' || before[i-1] == '\'') {
		return head, nil, tail // inside a string
	}
	if dot := strings.LastIndexByte(word, '.'); dot >= 0 {
		return head, fieldCandidates(globals, word[:dot], word[dot+1:]), tail
	}
	var out []string
	if fn, used, ok := openCall(head); ok {
		for _, k := range starlib.Keywords(fn) {
			if strings.HasPrefix(k, word) && !used[k] {
				out = append(out, k+"=")
			}
		}
		if starlib.KeywordOnly(fn) {
			return head, out, tail // keyword options only
		}
	}
	return head, append(out, nameCandidates(globals, word)...), tail
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// nameCandidates are globals, builtins and keywords that start with prefix.
func nameCandidates(globals starlark.StringDict, prefix string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if strings.HasPrefix(n, prefix) && !seen[n] && !strings.HasPrefix(n, "_") {
			seen[n] = true
			out = append(out, n)
		}
	}
	for n := range globals {
		add(n)
	}
	for n := range starlark.Universe {
		add(n)
	}
	for _, n := range keywords {
		add(n)
	}
	sort.Strings(out)
	return out
}

// fieldCandidates are obj.field for the fields of the value at the dotted
// path obj (a global and fields of it) that start with prefix.
func fieldCandidates(globals starlark.StringDict, obj, prefix string) []string {
	root, rest, _ := strings.Cut(obj, ".")
	v, ok := globals[root]
	if !ok {
		return nil
	}
	if rest != "" {
		var err error
		if v, err = values.Field(v, rest); err != nil {
			return nil
		}
	}
	h, ok := v.(starlark.HasAttrs)
	if !ok {
		return nil
	}
	var out []string
	for _, n := range h.AttrNames() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, obj+"."+n)
		}
	}
	sort.Strings(out)
	return out
}

// openCall finds the innermost call still open at the end of text and
// returns the name of the function called and the keywords given to it so
// far. The cursor must be where an argument starts: after "(" or ",".
func openCall(text string) (fn string, used map[string]bool, ok bool) {
	depth := 0
	var quote byte
	start := -1
	for i := len(text) - 1; i >= 0 && start < 0; i-- {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ')' || c == ']' || c == '}':
			depth++
		case c == '(' || c == '[' || c == '{':
			if depth == 0 {
				if c != '(' {
					return "", nil, false
				}
				start = i
			}
			depth--
		}
	}
	if start < 0 {
		return "", nil, false
	}
	last := strings.TrimRight(text, " \t")
	if last == "" || (last[len(last)-1] != '(' && last[len(last)-1] != ',') {
		return "", nil, false
	}
	j := start
	for j > 0 && isWordByte(text[j-1]) {
		j--
	}
	fn = text[j:start]
	if fn == "" {
		return "", nil, false
	}
	used = map[string]bool{}
	for _, arg := range strings.Split(text[start+1:], ",") {
		if k, _, found := strings.Cut(arg, "="); found {
			used[strings.TrimSpace(k)] = true
		}
	}
	return fn, used, true
}
