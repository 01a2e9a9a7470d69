// Package docs holds netscript's manual (the *.md files beside this one);
// its tests check that every example in the manual and in the README runs
// as written.
package docs

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is one fenced code block of a Markdown file.
type Block struct {
	File string // as named to the reader: "README.md", "docs/daemon.md"
	Line int    // of the opening fence, from 1
	Lang string // the fence's info string, first word: "sh", "python", "text"
	Text string // the lines between the fences

	// Kind says what running the examples does with the block: KindShell
	// and KindScript blocks run, the others do not (Skip says why).
	Kind Kind
	// Fails: the block's first line is "# fails: ...": it runs and must
	// end with an error.
	Fails bool
	// Skip is why a block does not run: the reason given after "# not
	// run:" on its first line, or what kind of block it is.
	Skip string
}

// Kind is what a block holds.
type Kind int

// The kinds of block.
const (
	KindOther  Kind = iota // output, a transcript, text: never run
	KindShell              // shell lines that call netscript
	KindScript             // a Starlark script
)

// The markers a block's first line may carry.
const (
	markNotRun = "# not run:"
	markFails  = "# fails:"
)

// netscriptCall finds a shell command that runs netscript (or the binary
// under netperf's name), at the start of a line or after ; & | ( or an
// environment assignment; comments do not count (see runsNetscript).
var netscriptCall = regexp.MustCompile(`(^|[;&|(]\s*|^\w+=\S*\s+)(\S*/)?(netscript|netperf)\b`)

// runsNetscript reports whether shell text runs netscript.
func runsNetscript(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, "#"); i >= 0 {
			l = l[:i]
		}
		if netscriptCall.MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

// Blocks returns the fenced code blocks of a Markdown file's text, each
// with what running the examples does with it. A fence that is never
// closed is an error.
func Blocks(file, text string) ([]Block, error) {
	var out []Block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(open, "```") || len(lines[i])-len(open) > 3 {
			continue
		}
		info := strings.Fields(strings.TrimPrefix(open, "```"))
		b := Block{File: file, Line: i + 1}
		if len(info) > 0 {
			b.Lang = info[0]
		}
		var body []string
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[j], " "), "```"); j++ {
			body = append(body, lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s:%d: a code block that is never closed", file, i+1)
		}
		b.Text = strings.Join(body, "\n")
		classify(&b, body)
		out = append(out, b)
		i = j
	}
	return out, nil
}

// classify sets a block's Kind, Fails and Skip from its language and its
// first line.
func classify(b *Block, body []string) {
	first := ""
	if len(body) > 0 {
		first = strings.TrimSpace(body[0])
	}
	switch b.Lang {
	case "sh", "shell", "bash", "console":
		b.Kind = KindShell
		if !runsNetscript(b.Text) {
			b.Kind, b.Skip = KindOther, "a shell block that does not run netscript"
		}
	case "python", "starlark", "star", "py":
		b.Kind = KindScript
	default:
		b.Skip = fmt.Sprintf("a %q block, not an example", b.Lang)
		return
	}
	switch {
	case strings.HasPrefix(first, markNotRun):
		b.Kind, b.Skip = KindOther, strings.TrimSpace(strings.TrimPrefix(first, markNotRun))
	case strings.HasPrefix(first, markFails):
		b.Fails = true
	}
}
