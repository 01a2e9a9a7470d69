package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"netscript/engine/hist"
	"netscript/engine/result"
	"netscript/engine/sysinfo"
	"netscript/record"
)

// rr is a TCP_RR result of a burst sweep with a full histogram and interim
// samples.
func rr(burst int, tput float64, start float64) record.RunResult {
	h := hist.New()
	for i := 0; i < 2000; i++ {
		h.Record(int64(10_000*(burst+1) + (i*7919)%5000))
	}
	return record.RunResult{Result: &result.Result{Test: "TCP_RR", Throughput: tput, Units: result.UnitsTrans, Elapsed: 1,
		Transactions: 2000, Latency: result.LatencyOf(h), Hist: h, Errors: map[string]uint64{}, Start: start,
		Config:  result.Config{Request: 1, Response: 1, Burst: burst, Duration: 1},
		Interim: []result.Sample{{T: 0.5, Throughput: tput * 0.9, Interval: 0.5}, {T: 1, Throughput: tput * 1.1, Interval: 0.5}}},
		ServerEnv: &sysinfo.Info{Hostname: "far", Kernel: "6.1"}}
}

func testRun() *record.Run {
	return &record.Run{Format: record.Format, Script: record.RunScript{Name: "sweep.star", Text: "print(1)\n", SHA256: "ab12"},
		Args: map[string]string{"duration": "1"}, Env: sysinfo.Info{Hostname: "near", Kernel: "6.2"},
		Start: time.Unix(1000, 0), End: time.Unix(1010, 0), Status: record.RunOK,
		Results: []record.RunResult{rr(0, 20000, 1000), rr(4, 60000, 1002), rr(16, 90000, 1004)}}
}

// TestFigures: a burst sweep with histograms and interim samples gives a
// throughput sweep, a p99 sweep, a latency distribution and a time series.
func TestFigures(t *testing.T) {
	figs, notes := Figures(testRun().Results)
	var titles []string
	for _, f := range figs {
		titles = append(titles, f.Title)
	}
	want := []string{"throughput against config.burst", "p99 latency against config.burst", "latency distribution", "throughput over time (Trans/s)"}
	if strings.Join(titles, "|") != strings.Join(want, "|") || len(notes) != 0 {
		t.Errorf("figures %q, notes %q; want %q", titles, notes, want)
	}
	text, err := Charts(testRun().Results, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("charts lack %q", w)
		}
	}
}

// TestHTML: the page holds the script, its hash, args, both ends' env(),
// the results, one inline SVG per figure, and for a replay the recorded run.
func TestHTML(t *testing.T) {
	run := testRun()
	was := testRun()
	was.Results = was.Results[:2]
	run.ReplayOf = was
	var b bytes.Buffer
	if err := HTML(&b, run); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if keep := os.Getenv("NETSCRIPT_KEEP_REPORT"); keep != "" {
		os.WriteFile(keep, b.Bytes(), 0o644) // to look at it in a browser
	}
	for _, w := range []string{"<pre class=\"script\">print(1)\n</pre>", "<code>ab12</code>", "<td>duration</td><td>1</td>",
		"<th>client</th><th>server</th>", "<td>hostname</td><td>near</td><td>far</td>", `data-test="TCP_RR"`,
		"<h3>Recorded</h3>", "<h3>Replayed</h3>", "Same machine settings as recorded."} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	// Four figures of the run and one of the replay's changes.
	if n := strings.Count(page, "<svg"); n != 5 {
		t.Errorf("%d inline SVGs, want 5", n)
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an XML declaration inside the page")
	}
}
