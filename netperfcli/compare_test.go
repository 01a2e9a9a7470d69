package netperfcli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/client/netservertest"
	"netscript/session"
)

// The comparison tests run each command line twice against the same
// netserver (netperf 2.7.1's, from the peers folder): with the reference
// netperf 2.7.1 and with netscript's netperf, and compare what both print
// line by line: the same lines, the same words, and the same columns
// wherever the numbers before them are as wide (the numbers themselves
// differ between any two runs), the same exit status.

// runs is what one run printed.
type runs struct {
	out, err string
	status   int
}

// reference runs netperf 2.7.1 with args.
func reference(t *testing.T, args []string) runs {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, netservertest.Binary(t, "netperf"), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	st := 0
	if ee, ok := err.(*exec.ExitError); ok {
		st = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("netperf %s: %v", strings.Join(args, " "), err)
	}
	return runs{netservertest.DropTimerNoise(o.String()), e.String(), st}
}

// ours runs netscript's netperf with args, in this process.
func ours(t *testing.T, args []string) runs {
	t.Helper()
	env := session.New("test")
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var o, e bytes.Buffer
	st := MainProgram(ctx, netservertest.Binary(t, "netperf"), args, env, "test", &o, &e)
	return runs{o.String(), e.String(), st}
}

// commandLines reads testdata/lines.txt: a netperf command line a line.
func commandLines(t *testing.T) [][]string {
	b, err := os.ReadFile("testdata/lines.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, shellWords(l))
		}
	}
	return out
}

// shellWords splits a line at blanks outside double quotes.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, in := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// TestAgainstNetperf runs every line of testdata/lines.txt with both
// netperfs against one netserver and compares what they print.
func TestAgainstNetperf(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	slots := make(chan struct{}, 3) // the lines run a few at a time on a small machine
	for _, line := range commandLines(t) {
		args := append([]string{"-H", "127.0.0.1", "-p", strconv.Itoa(port)}, line...)
		t.Run(strings.Join(line, " "), func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			ref := make(chan runs, 1)
			go func() { ref <- reference(t, args) }()
			got := ours(t, args)
			want := <-ref
			want.out = timerChance(args, want.out)
			compareRuns(t, want, got)
		})
	}
}

// timerChance takes out of netperf's output what its timer decides by
// chance. In a test with a connection per transaction (TCP_CRR, TCP_CC)
// netperf reads LOCAL_CONG_CONTROL only when its timer stopped the loop
// with a connection still up (the signal broke a recv); stopped between
// two connections, it prints none. Ours prints none every time, so
// netperf's is made "" when it named an algorithm.
func timerChance(args []string, out string) string {
	perTransaction := slices.ContainsFunc(args, func(a string) bool { return a == "TCP_CRR" || a == "TCP_CC" })
	if !perTransaction {
		return out
	}
	return congLine.ReplaceAllString(out, "${1}")
}

// congLine is LOCAL_CONG_CONTROL's key=value line with an algorithm.
var congLine = regexp.MustCompile(`(?m)^(LOCAL_CONG_CONTROL=)[a-z0-9_]+$`)

// compareRuns compares two runs' statuses, outputs and errors.
func compareRuns(t *testing.T, want, got runs) {
	t.Helper()
	if got.status != want.status {
		t.Errorf("exit status %d, netperf's %d\nstdout:\n%s\nstderr:\n%s", got.status, want.status, got.out, got.err)
	}
	compare(t, "stdout", lines(want.out), lines(got.out))
	compare(t, "stderr", lines(want.err), lines(got.err))
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

var (
	interimLine   = regexp.MustCompile(`^Interim result: +[0-9.]+ [^ ]+/s over [0-9]+\.[0-9]{3} seconds ending at [0-9]+\.[0-9]{3}$`)
	interimKeyval = regexp.MustCompile(`^NETPERF_(INTERIM_RESULT|UNITS|INTERVAL|ENDING)\[[0-9]+\]=`)
	interimCSV    = regexp.MustCompile(`^ *[0-9.]+,[^,]+/s,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3}$`)
)

// compare checks got against netperf's lines. The confidence warning
// block is left out of both when only one has it (whether a short run
// meets the target is chance); interim lines are left out of both, their
// number depending on the run's timing, as long as both have some or
// none. Columns are compared within a paragraph (lines between blank
// ones) only where its numbers are as wide as netperf's: -O's columns
// widen for a wider value, and move the headers above it.
func compare(t *testing.T, what string, want, got []string) {
	t.Helper()
	var wi, gi int
	want, wi = dropInterim(want)
	got, gi = dropInterim(got)
	if (wi == 0) != (gi == 0) {
		t.Errorf("%s: %d interim lines, netperf printed %d", what, gi, wi)
	}
	if hasWarning(want) != hasWarning(got) {
		want, got = dropWarning(want), dropWarning(got)
	}
	if len(want) != len(got) {
		t.Fatalf("%s: %d lines, netperf printed %d:\n%s\nnetperf's:\n%s", what, len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for start := 0; start < len(want); {
		end := start
		for end < len(want) && want[end] != "" {
			end++
		}
		columns := sameWidths(want[start:end], got[start:end])
		for i := start; i < end; i++ {
			if err := compareLine(want[i], got[i], columns); err != "" {
				t.Errorf("%s line %d: %s\n got: %q\nwant: %q", what, i+1, err, got[i], want[i])
			}
		}
		if end < len(want) && got[end] != "" {
			t.Errorf("%s line %d: %q, netperf's a blank line", what, end+1, got[end])
		}
		start = end + 1
	}
}

// sameWidths reports whether every number of a paragraph is as wide as
// netperf's in the same place.
func sameWidths(want, got []string) bool {
	for i := range want {
		wt, gt := words(want[i]), words(got[i])
		if len(wt) != len(gt) {
			return false
		}
		for j := range wt {
			if len(wt[j].s) != len(gt[j].s) {
				return false
			}
		}
	}
	return true
}

func dropInterim(ls []string) ([]string, int) {
	var out []string
	n := 0
	for _, l := range ls {
		if interimLine.MatchString(l) || interimKeyval.MatchString(l) || interimCSV.MatchString(l) {
			n++
			continue
		}
		out = append(out, l)
	}
	return out, n
}

func hasWarning(ls []string) bool {
	for _, l := range ls {
		if l == "!!! WARNING" {
			return true
		}
	}
	return false
}

// dropWarning removes the warning block (its !!! lines and the blank line
// after them).
func dropWarning(ls []string) []string {
	var out []string
	skipBlank := false
	for _, l := range ls {
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

// number is a number (%g's exponent form too, TCP_SENDFILE's bytes), with a %
// or, in the -v 2 histogram, the : after it.
var number = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?[%:]?$`)

// variable are selectors whose values differ between any two runs
// whatever they are: an identifier, the program's path, a time.
func variable(key string) bool {
	return key == "UUID" || key == "COMMAND_LINE" || strings.HasPrefix(key, "NETPERF_")
}

// compareLine compares one line: key=value lines by key and non-numeric
// value, CSV lines by field, others by blank-separated words and, with
// columns, their columns.
func compareLine(want, got string, columns bool) string {
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
	if csvLine(want) {
		wf, gf := strings.Split(want, ","), strings.Split(got, ",")
		if len(wf) != len(gf) {
			return fmt.Sprintf("%d CSV fields, netperf's %d", len(gf), len(wf))
		}
		for i := range wf {
			a, b := wf[i], gf[i]
			if a != b && !(number.MatchString(strings.TrimSpace(a)) && number.MatchString(strings.TrimSpace(b))) &&
				!strings.HasPrefix(a, `"/`) && !uuidLike(strings.TrimSpace(a)) {
				return "field " + strconv.Itoa(i+1) + " is " + b + ", netperf's " + a
			}
		}
		return ""
	}
	wt, gt := words(want), words(got)
	if len(wt) != len(gt) {
		return "a different number of words"
	}
	for i := range wt {
		a, b := wt[i], gt[i]
		num := number.MatchString(a.s) && number.MatchString(b.s)
		if !num && a.s != b.s && !uuidLike(a.s) {
			return "word " + b.s + ", netperf's " + a.s
		}
		if columns && a.col != b.col {
			return "word " + strconv.Itoa(i+1) + " (" + b.s + ") at column " + strconv.Itoa(b.col) + ", netperf's at " + strconv.Itoa(a.col)
		}
	}
	if columns && len(want) != len(got) {
		return "a different length (trailing spaces)"
	}
	return ""
}

// csvLine reports whether l is CSV: commas, and no blank outside a
// quoted field but after a comma (netperf's empty field).
func csvLine(l string) bool {
	if !strings.Contains(l, ",") {
		return false
	}
	quoted := false
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '"':
			quoted = !quoted
		case l[i] == ' ' && !quoted && (i == 0 || l[i-1] != ','):
			return strings.Count(l, ",") > 2
		}
	}
	return true
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

// TestAgainstNetperfIPv6 compares a few lines over IPv6, whose banner,
// wildcard source and families netperf words its own way.
func TestAgainstNetperfIPv6(t *testing.T) {
	port := strconv.Itoa(netservertest.Start(t, "::1"))
	for _, line := range []string{"-t TCP_RR -l 1", "-t omni -l 1 -- -d rr -o all", "-6 -t UDP_RR -l 1 -- -k all"} {
		args := append([]string{"-H", "::1", "-p", port}, shellWords(line)...)
		t.Run(line, func(t *testing.T) {
			ref := make(chan runs, 1)
			go func() { ref <- reference(t, args) }()
			got := ours(t, args)
			compareRuns(t, <-ref, got)
		})
	}
}

// TestTimerChance: netperf's LOCAL_CONG_CONTROL is let go only where its
// timer decides it, in a test with a connection per transaction.
func TestTimerChance(t *testing.T) {
	for _, c := range []struct {
		args     []string
		out, got string
	}{
		{[]string{"-t", "TCP_CRR", "--", "-k", "all"}, "LOCAL_CONG_CONTROL=bbr\nTHROUGHPUT=5\n", "LOCAL_CONG_CONTROL=\nTHROUGHPUT=5\n"},
		{[]string{"-t", "TCP_CC", "--", "-k", "all"}, "LOCAL_CONG_CONTROL=cubic\n", "LOCAL_CONG_CONTROL=\n"},
		{[]string{"-t", "TCP_CRR", "--", "-k", "all"}, "LOCAL_CONG_CONTROL=\n", "LOCAL_CONG_CONTROL=\n"},
		{[]string{"-t", "TCP_CRR", "--", "-k", "all"}, "REMOTE_CONG_CONTROL=bbr\n", "REMOTE_CONG_CONTROL=bbr\n"},
		{[]string{"-t", "TCP_STREAM", "--", "-K", "cubic", "-k", "all"}, "LOCAL_CONG_CONTROL=cubic\n", "LOCAL_CONG_CONTROL=cubic\n"},
		{[]string{"-t", "TCP_RR", "--", "-k", "all"}, "LOCAL_CONG_CONTROL=bbr\n", "LOCAL_CONG_CONTROL=bbr\n"},
	} {
		if got := timerChance(c.args, c.out); got != c.got {
			t.Errorf("%v: %q, want %q", c.args, got, c.got)
		}
	}
}
