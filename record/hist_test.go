package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/values"
)

// recordedRun runs code with a Recorder and returns the run as a record
// holds it, with the histograms the tests measured.
func recordedRun(t *testing.T, code string) *Run {
	t.Helper()
	th, env := startest.NewThread(t)
	var rec Recorder
	env.OnResult = rec.Add
	if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "rec.star", code, starlib.Predeclared()); err != nil {
		t.Fatal(err)
	}
	run := fixedRun()
	run.Results = rec.Results()
	return run
}

// TestRecordKeepsHistograms: a result's histogram and each flow's come
// back from a record identical, so percentiles, plots and aggregate()
// work on a record as on the run itself.
func TestRecordKeepsHistograms(t *testing.T) {
	run := recordedRun(t, "tcp_rr(transactions=200, flows=2, brand='a<b & c')\ntcp_stream(bytes='64K')\n")
	var b bytes.Buffer
	if err := run.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRun(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	was, got := run.Results[0].Result, back.Results[0].Result
	if was.Hist == nil || got.Hist == nil || !got.Hist.Equal(was.Hist) {
		t.Fatalf("the TCP_RR histogram did not come back: was %v, got %v", was.Hist != nil, got.Hist != nil)
	}
	if len(got.Flows) != 2 {
		t.Fatalf("%d flows", len(got.Flows))
	}
	for i, f := range got.Flows {
		if f.Hist == nil || !f.Hist.Equal(was.Flows[i].Hist) {
			t.Errorf("flow %d: histogram not kept", i)
		}
	}
	if s := back.Results[1].Result; s.Hist != nil || s.Test != "TCP_STREAM" {
		t.Errorf("the stream result reads back with a histogram: %+v", s)
	}
	if !strings.Contains(b.String(), `"brand": "a<b & c"`) {
		t.Errorf("the brand is not kept as written:\n%.1000s", b.String())
	}
	if strings.Count(b.String(), `"hist":`) != 1 || strings.Count(b.String(), `"flow_hists":`) != 1 {
		t.Errorf("want one hist and one flow_hists in the record:\n%.2000s", b.String())
	}
	// A script over the record sees the same percentiles.
	res := values.NewResult(got)
	v, err := starlark.EvalOptions(starlib.FileOptions(), &starlark.Thread{}, "p.star",
		"[r.latency.percentile(99) == r.latency.p99, len(r.latency.histogram) > 0, r.flows[1].latency.percentile(50) == r.flows[1].latency.p50]",
		starlark.StringDict{"r": res})
	if err != nil || v.String() != "[True, True, True]" {
		t.Errorf("percentiles of a result read back: %v %v", v, err)
	}
	// show and replay still lay it out.
	if _, err := back.Tables(); err != nil {
		t.Errorf("tables: %v", err)
	}
	if _, err := ReplayTable(back.Results, run.Results); err != nil {
		t.Errorf("replay table: %v", err)
	}
}

// TestRecordBadHistograms: a damaged histogram is one clear line.
func TestRecordBadHistograms(t *testing.T) {
	run := recordedRun(t, "tcp_rr(transactions=50, flows=2)\n")
	var good bytes.Buffer
	if err := run.Encode(&good); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(rr map[string]any)) []byte {
		var d map[string]any
		json.Unmarshal(good.Bytes(), &d)
		f(d["results"].([]any)[0].(map[string]any))
		b, _ := json.Marshal(d)
		return b
	}
	cases := []struct {
		name string
		doc  []byte
		want string
	}{
		{"bad hist", edit(func(rr map[string]any) { rr["hist"] = "AAAA" }), "corrupt record: the latency histogram of a TCP_RR result: hist:"},
		{"bad flow hist", edit(func(rr map[string]any) { rr["flow_hists"].([]any)[1] = "AQ==" }), "corrupt record: the latency histogram of flow 1 of a TCP_RR result: hist:"},
		{"flow hists miscounted", edit(func(rr map[string]any) { rr["flow_hists"] = rr["flow_hists"].([]any)[:1] }), "corrupt record: 1 flow histograms for the 2 flows of a TCP_RR result"},
		{"not base64", edit(func(rr map[string]any) { rr["hist"] = "!!" }), "not a netscript record: illegal base64"},
	}
	for _, c := range cases {
		_, err := DecodeRun(c.doc)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", c.name, err, c.want)
		}
	}
}
