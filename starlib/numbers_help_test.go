package starlib

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/starlib/module"
)

// TestNumbersHelp: format, round, the latency methods and the csv/kv
// changes have help() texts, written alike and no wider than a mail.
func TestNumbersHelp(t *testing.T) {
	cases := []struct {
		code string
		want []string
	}{
		{`help(format)`, []string{"format(x, spec=\"\") -> str", "Formats the number x", "27,291.86 trans/s"}},
		{`help(round)`, []string{"round(x, ndigits=None) -> number", "Rounds x", "ties go to the even"}},
		{`help(tcp_rr(transactions=5).latency)`, []string{"percentile(q)", "histogram"}},
		{`help(tcp_rr(transactions=5).latency.percentile)`, []string{"latency.percentile(q) -> float", "Returns the q-th percentile", "1/256"}},
		{`help("latency.percentiles")`, []string{"latency.percentiles(qs) -> list"}},
		{`help("latency.histogram")`, []string{"(low_us, high_us, count)"}},
		{`help(csv)`, []string{"header=True", "-P 0", "p99_latency", "P99_LATENCY"}},
		{`help(kv)`, []string{"P99_LATENCY"}},
		{`help()`, []string{"format", "round"}},
		// stats.percentile keeps its own text.
		{`help("percentile")`, []string{"stats.percentile(xs, q)"}},
	}
	for _, c := range cases {
		th, _ := newTestThread(t)
		var out strings.Builder
		th.Print = func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }
		if _, err := starlark.ExecFileOptions(FileOptions(), th, "help.star", c.code, Predeclared()); err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s lacks %q:\n%s", c.code, w, out.String())
			}
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if len([]rune(line)) > module.MailWidth {
				t.Errorf("%s: line wider than %d: %q", c.code, module.MailWidth, line)
			}
		}
	}
}
