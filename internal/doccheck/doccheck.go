// Package doccheck reads the manual (docs/*.md) for tests that hold it to
// the code: which file describes an option, a builtin or a field.
package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Read returns the text of every *.md file of the manual in dir (the
// module's docs/, from the test's package: "../docs", "../../docs"), by
// its name as docs/NAME.md.
func Read(t testing.TB, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md beside the module (%v)", err)
	}
	docs := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs["docs/"+filepath.Base(f)] = string(b)
	}
	return docs
}

// DocumentedIn lists the docs files that describe name: where it is
// written as code (`name`, `name(...)`, `name=...`, `name.field`) in the
// first cell of a table row or the first line of a list item, or as a word
// in a heading. A mention in passing elsewhere does not count.
func DocumentedIn(docs map[string]string, name string) []string {
	code := regexp.MustCompile("`" + regexp.QuoteMeta(name) + "[`(=., \\[]")
	word := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `([^\w.]|$)`)
	var in []string
	for f, text := range docs {
		for _, l := range strings.Split(text, "\n") {
			if describes(strings.TrimSpace(l), code, word) {
				in = append(in, f)
				break
			}
		}
	}
	sort.Strings(in)
	return in
}

// describes reports whether line t of a docs file describes what code (as
// code) and word (as a word in a heading) match.
func describes(t string, code, word *regexp.Regexp) bool {
	switch {
	case strings.HasPrefix(t, "|"):
		cells := strings.SplitN(t, "|", 3)
		return len(cells) == 3 && code.MatchString(cells[1])
	case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
		return code.MatchString(t)
	case strings.HasPrefix(t, "#"):
		return word.MatchString(strings.TrimLeft(t, "# "))
	}
	return false
}
