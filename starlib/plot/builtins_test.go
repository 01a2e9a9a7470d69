package plot_test

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"golang.org/x/image/font/gofont/goregular"

	"netscript/engine/hist"
	"netscript/engine/result"
	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/module"
	"netscript/starlib/values"
)

// histResult is a TCP_RR result with a full latency histogram of n
// transactions around base nanoseconds.
func histResult(brand string, base int64, n int) *values.Record {
	h := hist.New()
	for i := 0; i < n; i++ {
		v := base + int64(i*7919)%base
		if i%100 == 0 {
			v = base * 20
		}
		h.Record(v)
	}
	return values.NewResult(&result.Result{Test: "TCP_RR", Brand: brand, Throughput: float64(n) / 2, Units: result.UnitsTrans,
		Elapsed: 2, Transactions: uint64(n), Latency: result.LatencyOf(h), Hist: h, Errors: map[string]uint64{},
		Interim: []result.Sample{}, Flows: []*result.Flow{}, Config: result.Config{Duration: 2, Request: 1, Response: 1}})
}

// pictureGlobals are the values the picture tests draw: fixed results,
// results with histograms, and helpers.
func pictureGlobals(t *testing.T) starlark.StringDict {
	g := startest.FixedResults()
	g["lat"] = starlark.NewList([]starlark.Value{histResult("small", 20_000, 5000), histResult("large", 60_000, 2000)})
	g["dir"] = starlark.String(t.TempDir())
	for k, v := range starlib.Predeclared() {
		g[k] = v
	}
	return g
}

// picturePrelude defines feeder() (for confidence() and compare() without
// a network) and ts(), interim samples of a result as a dict.
const picturePrelude = `
def feeder(values):
    state = {"i": 0}
    def next():
        v = values[state["i"] % len(values)]
        state["i"] += 1
        return v
    return next

def ts(brand, start, values):
    return {"test": "TCP_STREAM", "brand": brand, "units": "10^6bits/s", "start": start,
            "interim": [{"t": 0.5 * (i + 1), "throughput": v, "interval": 0.5} for i, v in enumerate(values)]}

c1 = confidence(feeder([100.0, 102.0, 98.0, 101.0]), min = 4, max = 4)
c2 = confidence(feeder([150.0, 160.0, 155.0, 152.0]), min = 4, max = 4)
d1 = compare(feeder([100.0, 101.0, 99.0]), feeder([110.0, 111.0, 109.0]), runs = 3)
`

// runPicture runs code after the prelude and returns the value of out.
func runPicture(t *testing.T, g starlark.StringDict, code string) (starlark.Value, error) {
	t.Helper()
	th, _ := startest.NewThread(t)
	th.Print = func(*starlark.Thread, string) {}
	got, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "pictures.star", picturePrelude+code, g)
	if err != nil {
		return nil, err
	}
	return got["out"], nil
}

// svgStats is what an SVG from gonum shows: for each series colour the
// vertices of its lines (the data line and the legend's sample), the
// number of glyphs (points, marks, the legend's sample) and filled shapes
// (bars); and every text.
type svgStats struct {
	lines  map[string][]int
	glyphs map[string]int
	fills  map[string]int
	texts  []string
}

// readSVG parses an SVG as XML and sorts its paths by colour; black and
// grey (axes, ticks, grid, error bars) are left out.
func readSVG(t *testing.T, path string) svgStats {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := svgStats{lines: map[string][]int{}, glyphs: map[string]int{}, fills: map[string]int{}}
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			inText = x.Name.Local == "text"
			if x.Name.Local != "path" {
				continue
			}
			var d, style string
			for _, a := range x.Attr {
				switch a.Name.Local {
				case "d":
					d = a.Value
				case "style":
					style = a.Value
				}
			}
			if c, ok := styleValue(style, "fill"); ok && c != "none" && c != "#FFFFFF" {
				s.fills[c]++
			}
			c, ok := styleValue(style, "stroke")
			if !ok || c == "#000000" || c == "#808080" {
				continue
			}
			switch w, _ := styleValue(style, "stroke-width"); w {
			case "1.5":
				s.lines[c] = append(s.lines[c], strings.Count(d, "L")+1)
			case "0.5":
				s.glyphs[c]++
			}
		case xml.CharData:
			if inText {
				s.texts = append(s.texts, strings.TrimSpace(string(x)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return s
}

func styleValue(style, key string) (string, bool) {
	for _, kv := range strings.Split(style, ";") {
		if k, v, ok := strings.Cut(kv, ":"); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// longest is the vertex count of the data line of each series (the
// legend's sample line has 2), in no particular order.
func (s svgStats) longest() []int {
	var out []int
	for _, ls := range s.lines {
		m := 0
		for _, n := range ls {
			m = max(m, n)
		}
		out = append(out, m)
	}
	return out
}

// TestPictureSVG: each builtin writes an SVG that parses as XML with the
// series, points, titles and axis labels it was asked for.
func TestPictureSVG(t *testing.T) {
	g := pictureGlobals(t)
	cases := []struct {
		name   string
		code   string
		series int
		points int // vertices of every data line; 0: not checked
		bars   int
		texts  []string
	}{
		{"sweep", `out = plot(rr + mixed, x = "config.request", series = "test", file = dir + "/sweep.svg", title = "size sweep")`,
			3, 0, 0, []string{"size sweep", "config.request (bytes)", "throughput (Trans/s)", "TCP_RR", "TCP_CRR", "UDP_RR"}},
		{"a log axis says what it left out", `out = plot([{"x": x, "throughput": 5.0 + x, "units": "Trans/s"} for x in [0, 1, 10]], x = "x", logx = True, file = dir + "/logx.svg")`,
			1, 0, 0, []string{"x (log scale: 1 point at or below 0 not shown)"}},
		{"sweep points", `out = plot(rr, x = "config.burst", y = "latency.p99", file = dir + "/p99.svg", xlabel = "burst", ylabel = "p99 (us)")`,
			1, 3, 0, []string{"burst", "p99 (us)"}},
		{"confidence", `out = plot([c1, c2], file = dir + "/ci.svg", title = "two configurations")`,
			1, 2, 0, []string{"two configurations", "confidence #1", "confidence #2"}},
		{"cdf", `out = latency_plot(lat, file = dir + "/cdf.svg", title = "latency")`,
			2, 0, 0, []string{"latency", "latency (µs)", "fraction at or below", "small", "large", "p50", "p99"}},
		{"ccdf", `out = latency_plot(lat, file = dir + "/ccdf.svg", kind = "ccdf")`,
			2, 0, 0, []string{"fraction slower", "p99.9"}},
		{"histogram", `out = latency_plot(lat, file = dir + "/hist.svg", kind = "histogram")`,
			2, 0, 0, []string{"fraction of transactions"}},
		{"aggregate is one curve", `out = latency_plot(aggregate(lat), file = dir + "/agg.svg")`,
			1, 0, 0, []string{"p50"}},
		{"timeseries", `out = timeseries([ts("bulk", 1000.0, [10, 20, 30, 40]), ts("probe", 1000.5, [5, 6, 7])], file = dir + "/ts.svg", title = "rrul")`,
			2, 0, 0, []string{"rrul", "time (s)", "throughput (10^6bits/s)", "bulk", "probe"}},
		{"timeseries panels", `out = timeseries({"download": [ts("down", 1000.0, [10, 20, 30])], "upload": [ts("up", 1000.0, [7, 8, 9])],
		                                            "ping": [{"brand": "probe", "start": 999.0, "interim": [{"t": 1.0, "latency": 3.5}, {"t": 2.0, "latency": 4.0}]}]},
		                                           y = {"ping": "latency"}, file = dir + "/panels.svg")`,
			1, 0, 0, []string{"download", "upload", "ping", "throughput (10^6bits/s)", "latency", "down", "up", "probe"}}, // one line a panel, each in the first colour
		{"bars", `out = bars([c1, c2], file = dir + "/bars.svg", labels = ["old", "new"], title = "intervals")`,
			0, 0, 2, []string{"intervals", "old", "new", "value"}},
		{"bars of comparisons", `out = bars([d1], file = dir + "/cmp.svg")`,
			0, 0, 1, []string{"change in value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runPicture(t, g, c.code)
			if err != nil {
				t.Fatal(err)
			}
			path, _ := starlark.AsString(out)
			if !strings.HasSuffix(path, ".svg") {
				t.Fatalf("returned %v, not the path", out)
			}
			s := readSVG(t, path)
			checkFontsEmbedded(t, path)
			if len(s.lines) != c.series {
				t.Errorf("%d series (colours %v), want %d", len(s.lines), s.lines, c.series)
			}
			if c.points > 0 {
				for _, n := range s.longest() {
					if n != c.points {
						t.Errorf("a line of %d points, want %d", n, c.points)
					}
				}
				for col, n := range s.glyphs {
					if n != c.points+1 { // and the legend's sample, or a lone series' unused one
						if len(s.lines) > 1 || n != c.points {
							t.Errorf("colour %s: %d glyphs for %d points", col, n, c.points)
						}
					}
				}
			}
			if c.bars > 0 {
				n := 0
				for _, k := range s.fills {
					n += k
				}
				if n != c.bars {
					t.Errorf("%d filled bars (%v), want %d", n, s.fills, c.bars)
				}
			}
			all := "\n" + strings.Join(s.texts, "\n") + "\n"
			for _, w := range c.texts {
				if !strings.Contains(all, "\n"+w+"\n") {
					t.Errorf("no text %q among %q", w, s.texts)
				}
			}
		})
	}
}

// TestPictureFormats: .png decodes to the size asked, .pdf is a PDF.
func TestPictureFormats(t *testing.T) {
	g := pictureGlobals(t)
	dir, _ := starlark.AsString(g["dir"])
	for _, code := range []string{
		`out = plot(rr, x = "config.burst", file = dir + "/a.png", width = 800, height = 500)`,
		`out = latency_plot(lat, file = dir + "/b.png", width = 800, height = 500)`,
		`out = timeseries([ts("bulk", 1.0, [1, 2, 3])], file = dir + "/c.png", width = 800, height = 500)`,
		`out = bars([c1, c2], file = dir + "/d.png", width = 800, height = 500)`,
	} {
		out, err := runPicture(t, g, code)
		if err != nil {
			t.Fatal(err)
		}
		path, _ := starlark.AsString(out)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 500 {
			t.Errorf("%s is %dx%d, asked 800x500", path, b.Dx(), b.Dy())
		}
	}
	if _, err := runPicture(t, g, `out = plot(rr, x = "config.burst", file = dir + "/e.pdf")`); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "e.pdf"))
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("e.pdf is not a PDF (%v): %.20q", err, b)
	}
}

// TestPictureErrors: bad input is one clear line, and a path that cannot
// be written is reported before anything else is looked at.
func TestPictureErrors(t *testing.T) {
	g := pictureGlobals(t)
	cases := []struct{ name, code, want string }{
		{"unknown field", `plot(rr, x = "config.bogus", file = dir + "/x.svg")`, "unknown field config.bogus: config has "},
		{"unknown y lists", `plot(rr, y = "thruput", file = dir + "/x.svg")`, "a result has brand, "},
		{"not a number", `plot(rr, y = "test", file = dir + "/x.svg")`, "field test is a string (\"TCP_RR\"), not a number to plot"},
		{"mixed units", `plot(rr + streams, file = dir + "/x.svg")`, "results mix units: results[0] (TCP_RR) is in Trans/s, results[3] (UDP_STREAM) in 10^6bits/s"},
		{"mixed kinds", `plot([c1] + rr, file = dir + "/x.svg")`, "results mix confidence values and results (results[1] is a result); plot one kind"},
		{"bars of results", `bars(rr, file = dir + "/x.svg")`, "values[0] is a result; bars takes confidence(), stats.ci() or compare() values"},
		{"bars mixed", `bars([c1, d1], file = dir + "/x.svg")`, "values mix confidence and comparison values"},
		{"bars labels", `bars([c1, c2], labels = ["one"], file = dir + "/x.svg")`, "1 labels for 2 values"},
		{"unwritable", `plot(rr, x = "bogus", file = "/nonexistent-dir/x.svg")`, `file "/nonexistent-dir/x.svg" cannot be written: no such file or directory`},
		{"extension", `plot(rr, file = dir + "/x.gif")`, "the extension says the format; use .svg, .png or .pdf"},
		{"no file", `plot(rr)`, "plot: file is required"},
		{"empty", `plot([], file = dir + "/x.svg")`, "plot: the list is empty; there is nothing to draw"},
		{"empty chart", `chart([])`, "chart: the list is empty"},
		{"stream latency", `latency_plot(streams, file = dir + "/x.svg")`, "results[0] is a UDP_STREAM result, which measures no latency"},
		{"no histogram", `latency_plot(rr, file = dir + "/x.svg")`, "results[0] (TCP_RR) has no latency histogram, only its percentiles"},
		{"dict latency", `latency_plot([lat[0].to_dict()], file = dir + "/x.svg")`, "results[0] is a dict, which carries no latency histogram"},
		{"kind", `latency_plot(lat, kind = "pdf", file = dir + "/x.svg")`, `kind "pdf": use "cdf", "ccdf" or "histogram"`},
		{"no interim", `timeseries(rr, file = dir + "/x.svg")`, "the results have no interim samples; run the tests with interval="},
		{"per flow", `timeseries([dict(ts("a", 1.0, [1]), flows = [{"index": 0}])], per_flow = True, file = dir + "/x.svg")`,
			"per_flow=True: the flows of results[0] (TCP_STREAM) keep no interim samples"},
		{"chart kind", `chart(rr, kind = "pie")`, `chart: kind "pie": use "plot"`},
		{"panel y", `timeseries({"a": [ts("a", 1.0, [1, 2])]}, y = {"a": 3}, file = dir + "/x.svg")`, `y["a"] must be a field name, got int`},
		{"y dict without panels", `timeseries([ts("a", 1.0, [1, 2])], y = {"a": "x"}, file = dir + "/x.svg")`, "y is a dict of one field per panel, for results given as a dict of panels"},
		{"empty panel", `timeseries({"a": []}, file = dir + "/x.svg")`, `panel "a": timeseries: the list is empty`},
		{"size", `plot(rr, file = dir + "/x.png", width = 0)`, "width and height are pixels above 0"},
		{"not a list", `plot(3, file = dir + "/x.png")`, "plot: results must be a list of results, got int"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runPicture(t, g, c.code)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if ee, ok := err.(*starlark.EvalError); ok {
				msg = ee.Msg
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("error %q lacks %q", msg, c.want)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
		})
	}
	dir, _ := starlark.AsString(g["dir"])
	if _, err := os.Stat(filepath.Join(dir, "x.svg")); err == nil {
		t.Error("a failed plot left its file behind")
	}

	// A failed plot over an existing picture (a typo in y= on a rerun)
	// leaves that picture as it was, and no temporary file beside it.
	old := filepath.Join(dir, "old.svg")
	if err := os.WriteFile(old, []byte("the last good picture"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runPicture(t, g, `plot(rr, y = "nosuch", file = dir + "/old.svg")`); err == nil {
		t.Fatal("no error for an unknown field")
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "the last good picture" {
		t.Errorf("the picture already there became %q (%v)", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left in the directory: %v", ents)
	}
}

// TestPictureHelp: help() documents every picture builtin, within the
// width of a mail, and the index lists them.
func TestPictureHelp(t *testing.T) {
	for name, sig := range map[string]string{
		"plot": "plot(results, x=None", "latency_plot": "latency_plot(results, file", "timeseries": "timeseries(results, file",
		"bars": "bars(values, file", "chart": "chart(values, kind=None", "": "latency_plot",
	} {
		th, _ := startest.NewThread(t)
		var out strings.Builder
		th.Print = func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }
		code := "help(" + name + ")"
		if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "help.star", code, starlib.Predeclared()); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), sig) {
			t.Errorf("%s lacks %q:\n%s", code, sig, out.String())
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if len([]rune(l)) > module.MailWidth {
				t.Errorf("%s: line wider than %d: %q", code, module.MailWidth, l)
			}
		}
	}
}

// checkFontsEmbedded: every font the SVG at path names is in it, as an
// @font-face, so its text is drawn with the metrics it was laid out with
// on a system that lacks the font (the legend then stays clear of the
// lines), not in a stand-in of other widths; and every embedded font is
// the Go font the binary carries, so no text was laid out in another.
func checkFontsEmbedded(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	embedded := map[string]bool{}
	for _, face := range strings.Split(text, "@font-face")[1:] {
		fam, ok := cutBetween(face, `font-family:"`, `"`)
		data, hasData := cutBetween(face, "base64,", ")")
		if !ok || !hasData {
			continue
		}
		embedded[fam] = true
		// The font's tables, as sfnt writes them back: the file less the
		// zero bytes that pad its last table.
		ttf, err := base64.StdEncoding.DecodeString(data)
		if err != nil || len(ttf) == 0 || !bytes.HasPrefix(goregular.TTF, ttf) || strings.Trim(string(goregular.TTF[len(ttf):]), "\x00") != "" {
			t.Errorf("the SVG embeds font %q (%d bytes), not the Go font", fam, len(ttf))
		}
	}
	used := 0
	for _, part := range strings.Split(text, "font-family:")[1:] {
		fam := strings.Trim(strings.SplitN(strings.SplitN(part, ";", 2)[0], "\n", 2)[0], `" `)
		if fam == "" {
			continue
		}
		used++
		if !embedded[fam] {
			t.Errorf("the SVG names font %q without embedding it (embedded: %v)", fam, embedded)
			return
		}
	}
	if used == 0 {
		t.Errorf("the SVG names no font")
	}
}

// cutBetween returns the text of s between the first before and the next
// after.
func cutBetween(s, before, after string) (string, bool) {
	_, rest, ok := strings.Cut(s, before)
	if !ok {
		return "", false
	}
	v, _, ok := strings.Cut(rest, after)
	return v, ok
}
