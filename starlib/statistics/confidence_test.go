package statistics_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/internal/startest"
	"netscript/session"
	"netscript/starlib"
	"netscript/starlib/thread"
)

// feeder is Starlark that defines seq(*vals), a zero-argument function
// factory returning the values in turn, cycling.
const feeder = `
def seq(*vals):
    s = {"i": 0}
    def f():
        s["i"] += 1
        return vals[(s["i"] - 1) % len(vals)]
    return f
`

// runCaptured runs code and returns what it wrote to stderr.
func runCaptured(t *testing.T, code string) (stderr string, env *session.Session) {
	t.Helper()
	th, env := startest.NewThread(t)
	var errBuf bytes.Buffer
	env.Stderr = &errBuf
	if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "warn.star", feeder+code, starlib.Predeclared()); err != nil {
		t.Fatalf("%s: %v", code, err)
	}
	return errBuf.String(), env
}

// TestConfidenceWarning checks netperf's warning: on stderr when the
// target is missed, with the achieved widths and where the call was, and
// nothing at all when it is met.
func TestConfidenceWarning(t *testing.T) {
	// 100, 200, 100, 200 at 99 %: by hand the widths are
	// 2·63.657·50/150 = 4243.8 %, 2·9.925·33.33/133.33 = 496.2 % and
	// 2·5.841·28.87/150 = 224.8 %.
	got, _ := runCaptured(t, `c = confidence(seq(100, 200), max=4)`)
	for _, want := range []string{
		"!!! WARNING (confidence() at warn.star:8:15)\n",
		"!!! Desired confidence was not achieved within the specified iterations (4).\n",
		"!!! This implies that there was variability in the test environment that\n",
		"!!! must be investigated before going further.\n",
		"!!! the mean less often than its level; method=\"two_stage\" keeps the level.\n",
		"!!! Confidence intervals: value           : 224.817% (wanted 5% at 99%)\n",
		"!!!                       Local CPU util  : 0.000% (not measured)\n",
		"!!!                       Remote CPU util : 0.000% (not measured)\n",
		"!!! Width after iterations 2..4: 4243.8% 496.2% 224.8%\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warning lacks %q; stderr:\n%s", want, got)
		}
	}

	// With measured CPU figures their widths are shown: local CPU 10, 20,
	// 10 has the relative spread of the case above after 3 iterations.
	got, _ = runCaptured(t, `confidence(seq({"throughput": 100, "local_cpu": 10, "remote_cpu": 50}, {"throughput": 100, "local_cpu": 20, "remote_cpu": 50}), max=3)`)
	for _, want := range []string{
		"!!! Confidence intervals: throughput      : 0.000% (wanted 5% at 99%)\n",
		"!!!                       Local CPU util  : 496.242%\n",
		"!!!                       Remote CPU util : 0.000%\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warning lacks %q; stderr:\n%s", want, got)
		}
	}

	// An explicit metric: only its line.
	got, _ = runCaptured(t, `confidence(seq({"rate": 100}, {"rate": 200}), max=3, level=95, metric="rate")`)
	if !strings.Contains(got, "!!! Confidence intervals: rate            : ") || strings.Contains(got, "CPU") {
		t.Errorf("explicit metric: stderr:\n%s", got)
	}

	// Met: silence.
	if got, _ := runCaptured(t, `confidence(seq(100, 100.1, 99.9))`); got != "" {
		t.Errorf("target met, but stderr has:\n%s", got)
	}
}

// progressLog records what confidence() and compare() report.
type progressLog struct{ calls []string }

func (p *progressLog) Test(client.Progress) {}
func (p *progressLog) Done()                {}
func (p *progressLog) Iteration(what string, k, max int) {
	p.calls = append(p.calls, fmt.Sprintf("%s %d/%d", what, k, max))
}

// TestIterationProgress checks that each iteration is announced before it
// runs, with the most there can be.
func TestIterationProgress(t *testing.T) {
	th, env := startest.NewThread(t)
	log := &progressLog{}
	env.Progress = log
	code := feeder + `
confidence(seq(100, 104, 97, 101), level=95, width=10, max=6)
compare(seq(1, 2), seq(3, 4), runs=2)
`
	if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "p.star", code, starlib.Predeclared()); err != nil {
		t.Fatal(err)
	}
	want := "confidence 1/6, confidence 2/6, confidence 3/6, confidence 4/6, " +
		"compare a 1/4, compare b 2/4, compare b 3/4, compare a 4/4"
	if got := strings.Join(log.calls, ", "); got != want {
		t.Errorf("progress\n got  %s\n want %s", got, want)
	}
}

// TestConfidenceCancelled checks that a cancelled context stops the loop
// between iterations instead of running the remaining ones.
func TestConfidenceCancelled(t *testing.T) {
	th, _ := startest.NewThread(t)
	ctx, cancel := context.WithCancel(context.Background())
	thread.SetContext(th, ctx)
	calls := 0
	pre := starlib.Predeclared()
	pre["tick"] = starlark.NewBuiltin("tick", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		calls++
		if calls == 2 {
			cancel()
		}
		return starlark.MakeInt(100 * calls), nil
	})
	_, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "c.star", `confidence(tick, max=10)`, pre)
	if err == nil || !strings.Contains(err.Error(), "confidence: iteration 3: context canceled") {
		t.Fatalf("got %v", err)
	}
	if calls != 2 {
		t.Fatalf("fn ran %d times after the cancel, want 2 in all", calls)
	}
}
