package netperfcli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/session"
)

// The golden transcripts in testdata/golden were recorded from the real
// netperf 2.7.1 against netserver on loopback (testdata/record.sh). Each
// is run here against the embedded loopback server, with its test length
// cut short, and compared: the same lines, the same words, and the same
// column positions wherever the numbers before them are as wide as
// netperf's (the numbers themselves differ).

// notGolden are transcripts kept for reference that this test does not
// compare: the refusals and texts netscript words as its own (tested in
// parse_test.go), and a selector list naming netscript's additions.
var notGolden = map[string]string{
	"selectors":           "netscript lists the selectors it fills",
	"help":                "netscript's usage text says what it runs",
	"test_help":           "netscript's usage text says what it runs",
	"version":             "netscript adds its own version line",
	"err_unknown_test":    "parse_test.go",
	"err_conf_level":      "parse_test.go",
	"err_bad_option":      "parse_test.go",
	"err_bad_test_option": "netperf warns and runs; netscript refuses (parse_test.go)",
	"err_missing_arg":     "parse_test.go",
	"tcp_stream_keyval":   "names LOCAL_ADDR and REMOTE_ADDR, which netperf leaves out and netscript fills",
	"tcp_stream_hist":     "netscript times no send() calls, so refuses -v 2 for streams (parse_test.go)",
}

type golden struct {
	name   string
	args   []string
	lines  []string
	status int
}

func readGolden(t *testing.T, path string) golden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	g := golden{name: strings.TrimSuffix(filepath.Base(path), ".txt")}
	cmd := strings.TrimPrefix(lines[0], "$ netperf ")
	g.args = shellWords(cmd)
	last := lines[len(lines)-1]
	g.status, err = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(last, "[exit="), "]"))
	if err != nil {
		t.Fatalf("%s: no exit status in %q", path, last)
	}
	g.lines = lines[1 : len(lines)-1]
	return g
}

// shellWords splits a recorded command line (single quotes only).
func shellWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		out = append(out, strings.Trim(w, "'"))
	}
	return out
}

// run runs args on a fresh environment with the test length cut to d.
func run(t *testing.T, args []string, d time.Duration) (string, string, int) {
	t.Helper()
	c, err := Parse(args)
	if err != nil {
		t.Fatalf("netperf %s: %v", strings.Join(args, " "), err)
	}
	if c.Duration > 0 {
		c.Duration = max(d, 2*c.Demo)
	}
	env := session.New("test")
	defer env.Close()
	var out, errb bytes.Buffer
	st := c.Run(context.Background(), env, &out, &errb)
	return out.String(), errb.String(), st
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	// A few at a time: many connection-per-transaction tests at once on a
	// loaded machine overflow a listener's backlog, and a dropped SYN
	// waits a second for its retransmission.
	slots := make(chan struct{}, 3)
	for _, path := range files {
		g := readGolden(t, path)
		if _, skip := notGolden[g.name]; skip {
			continue
		}
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			d := 300 * time.Millisecond
			if c, err := Parse(g.args); err == nil && c.Test.PerTransaction {
				d = time.Second // long enough to ride out a retransmitted SYN
			}
			out, errOut, st := run(t, g.args, d)
			if st != g.status {
				t.Fatalf("exit status %d, netperf's %d; stderr: %s", st, g.status, errOut)
			}
			compare(t, g.lines, strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
		})
	}
}

var interimLine = regexp.MustCompile(`^Interim result: +[0-9.]+ (Trans|10\^6bits)/s over [0-9]+\.[0-9]{3} seconds ending at [0-9]+\.[0-9]{3}$`)

// compare checks got against netperf's lines. The confidence warning block
// is left out of both when only one has it (whether a short run on a loaded
// machine meets the target is chance); interim lines are checked for their
// form and left out of the count.
func compare(t *testing.T, want, got []string) {
	t.Helper()
	want, got = dropInterim(t, want), dropInterim(t, got)
	ww, gw := hasWarning(want), hasWarning(got)
	if ww != gw {
		want, got = dropWarning(want), dropWarning(got)
	}
	if len(want) != len(got) {
		t.Fatalf("%d lines, netperf printed %d:\n%s\nnetperf's:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if err := compareLine(want[i], got[i]); err != "" {
			t.Errorf("line %d: %s\n got: %q\nwant: %q", i+1, err, got[i], want[i])
		}
	}
}

func dropInterim(t *testing.T, lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "Interim result:") {
			if !interimLine.MatchString(l) {
				t.Errorf("interim line not in netperf's form: %q", l)
			}
			continue
		}
		out = append(out, l)
	}
	return out
}

func hasWarning(lines []string) bool {
	for _, l := range lines {
		if l == "!!! WARNING" {
			return true
		}
	}
	return false
}

// dropWarning removes the warning block (its !!! lines and the blank line
// after them).
func dropWarning(lines []string) []string {
	var out []string
	skipBlank := false
	for _, l := range lines {
		if strings.HasPrefix(l, "!!!") {
			skipBlank = true
			continue
		}
		if skipBlank && l == "" {
			skipBlank = false
			continue
		}
		skipBlank = false
		out = append(out, l)
	}
	return out
}

// number is a number, with a % or, in the -v 2 histogram, the : after it.
var number = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?[%:]?$`)

// variable are values that differ between any two runs whatever they are.
func variable(key string) bool {
	return key == "UUID" || key == "COMMAND_LINE" || strings.HasSuffix(key, "_SIZE_END") || key == "LOCAL_TRANSPORT_RETRANS"
}

// compareLine compares one line: key=value lines by key and non-numeric
// value, CSV lines by field, others by whitespace-separated words and
// their columns.
func compareLine(want, got string) string {
	if k, v, ok := strings.Cut(want, "="); ok && !strings.Contains(k, " ") {
		gk, gv, _ := strings.Cut(got, "=")
		switch {
		case gk != k:
			return "key " + gk + ", netperf's " + k
		case variable(k) || number.MatchString(v) && number.MatchString(gv):
			return ""
		case gv != v:
			return "value " + gv + ", netperf's " + v
		}
		return ""
	}
	if strings.Contains(want, ",") && !strings.Contains(want, " ") || strings.Count(want, ",") > 2 {
		wf, gf := strings.Split(want, ","), strings.Split(got, ",")
		if len(wf) != len(gf) {
			return "a different number of CSV fields"
		}
		for i := range wf {
			a, b := strings.TrimSpace(wf[i]), strings.TrimSpace(gf[i])
			if a != b && !(number.MatchString(a) && number.MatchString(b)) && !strings.HasPrefix(a, "\"") {
				return "field " + strconv.Itoa(i+1) + " is " + b + ", netperf's " + a
			}
		}
		return ""
	}
	wt, gt := words(want), words(got)
	if len(wt) != len(gt) {
		return "a different number of words"
	}
	aligned := true
	for i := range wt {
		a, b := wt[i], gt[i]
		num := number.MatchString(a.s) && number.MatchString(b.s)
		if !num && a.s != b.s && !uuidLike(a.s) {
			return "word " + b.s + ", netperf's " + a.s
		}
		if len(a.s) != len(b.s) {
			aligned = false // a number of another width may sit elsewhere, and move what follows
		}
		if aligned && a.col != b.col {
			return "word " + strconv.Itoa(i+1) + " (" + b.s + ") at column " + strconv.Itoa(b.col) + ", netperf's at " + strconv.Itoa(a.col)
		}
	}
	if aligned && len(want) != len(got) {
		return "a different length (trailing spaces)"
	}
	return ""
}

func uuidLike(s string) bool { return strings.Count(s, "-") == 4 && len(s) == 36 }

type word struct {
	s   string
	col int
}

func words(l string) []word {
	var out []word
	start := -1
	for i := 0; i <= len(l); i++ {
		if i == len(l) || l[i] == ' ' {
			if start >= 0 {
				out = append(out, word{l[start:i], start})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}
