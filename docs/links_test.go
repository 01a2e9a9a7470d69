package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// mdLink finds Markdown links: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slug is the anchor GitHub gives a heading: lower case, punctuation
// other than - and _ dropped, spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file's headings (outside code
// blocks).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(l, "#") {
			out[slug(strings.TrimSpace(strings.TrimLeft(l, "#")))] = true
		}
	}
	return out
}

// TestLinks: every relative link of README.md and docs/*.md names a file
// that exists and, after #, a heading of it.
func TestLinks(t *testing.T) {
	for _, path := range manual(t) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := path
			if file != "" {
				dest = filepath.Join(filepath.Dir(path), file)
			}
			body, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %s: no file %s", shownName(path), target, dest)
				continue
			}
			if anchor != "" && !anchors(string(body))[anchor] {
				t.Errorf("%s: link %s: %s has no heading whose anchor is #%s", shownName(path), target, file, anchor)
			}
		}
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Standing endpoints: control=False":                     "standing-endpoints-controlfalse",
		"netperf against netscript: serve --netperf-listen":     "netperf-against-netscript-serve---netperf-listen",
		"TCP_CRR and TCP_CC, ports and TIME_WAIT":               "tcp_crr-and-tcp_cc-ports-and-time_wait",
		"Against netperf's own netserver: server=\"netserver\"": "against-netperfs-own-netserver-servernetserver",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
