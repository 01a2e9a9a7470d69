package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/sysinfo"
	"netscript/record"
	"netscript/starlib/output"
	"netscript/starlib/plot"
	"netscript/starlib/values"
)

// Picture size in the report, in points (gonum's SVG unit).
const (
	svgWidth  = 640
	svgHeight = 340
)

// HTML writes the report of a run: one self-contained page (no network
// fetches, no JavaScript, pictures as inline SVG) with the script and its
// hash, args, both ends' env(), every result as a table, the pictures that
// fit, and for a replay the recorded run beside the new one.
func HTML(w io.Writer, run *record.Run) error {
	var b bytes.Buffer
	title := "netscript run of " + run.Script.Name
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(title), style)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(title))
	fmt.Fprintf(&b, "<p class=\"summary\">%s</p>\n", strings.ReplaceAll(esc(run.Summary()), "\n", "<br>\n"))

	if run.ReplayOf != nil {
		if err := replaySection(&b, run); err != nil {
			return err
		}
	}
	checksSection(&b, run)
	b.WriteString("<h2>Results</h2>\n")
	if err := resultTables(&b, run.Results); err != nil {
		return err
	}
	if err := pictures(&b, "Pictures", run.Results); err != nil {
		return err
	}

	b.WriteString("<h2>Script</h2>\n")
	fmt.Fprintf(&b, "<p>%s, sha256 <code>%s</code></p>\n<pre class=\"script\">%s</pre>\n", esc(run.Script.Name), esc(run.Script.SHA256), esc(run.Script.Text))
	b.WriteString("<h2>Args</h2>\n")
	if len(run.Args) == 0 {
		b.WriteString("<p>none</p>\n")
	} else {
		keys := make([]string, 0, len(run.Args))
		for k := range run.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("<table class=\"args\">\n<tr><th>name</th><th>value</th></tr>\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td></tr>\n", esc(k), esc(run.Args[k]))
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("<h2>Machines</h2>\n")
	if err := envTable(&b, run); err != nil {
		return err
	}
	fmt.Fprintf(&b, "<p class=\"foot\">made by netscript report from a %s record, %s</p>\n</body>\n</html>\n", esc(run.Format), esc(run.End.Format(time.RFC3339)))
	_, err := w.Write(b.Bytes())
	return err
}

// style is the page's only styling; nothing is fetched.
const style = `
body { font-family: sans-serif; margin: 2em; color: #111; max-width: 100em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; }
pre { background: #f7f7f7; padding: 0.7em; overflow-x: auto; }
figure { display: inline-block; margin: 0.5em 1em 1em 0; } figcaption { font-size: 0.9em; color: #444; }
.side { display: flex; gap: 2em; } .side > div { flex: 1 1 0; min-width: 0; overflow-x: auto; } .side table { font-size: 0.85em; }
.note { color: #555; font-style: italic; }
`

// resultTables writes every result as an HTML table, one per kind of test
// with the columns table() gives it, in the order they first ran.
func resultTables(b *bytes.Buffer, results []record.RunResult) error {
	return resultTablesOf(b, results, output.TableDefaults)
}

// compactFields are the columns of the tables set side by side.
func compactFields(rows []starlark.Value) []string {
	fields := []string{"test"}
	if x := varied(rows); x != "" {
		fields = append(fields, x)
	}
	fields = append(fields, "throughput", "latency.p50", "latency.p99")
	for _, r := range rows {
		if v, err := values.Field(r, "brand"); err == nil && v.Truth() {
			return append([]string{"brand"}, fields...)
		}
	}
	return fields
}

// resultTablesOf writes the tables with the columns fields picks.
func resultTablesOf(b *bytes.Buffer, results []record.RunResult, fields func([]starlark.Value) []string) error {
	if len(results) == 0 {
		b.WriteString("<p>no results</p>\n")
		return nil
	}
	var order []string
	groups := map[string][]starlark.Value{}
	for _, rr := range results {
		res := *rr.Result
		if rr.Partial {
			res.Brand = strings.TrimSpace(res.Brand + " (partial)")
		}
		if _, ok := groups[res.Test]; !ok {
			order = append(order, res.Test)
		}
		groups[res.Test] = append(groups[res.Test], values.NewResult(&res))
	}
	for _, test := range order {
		rows := groups[test]
		text, err := output.CSV(rows, fields(rows))
		if err != nil {
			return err
		}
		recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<table class=\"results\" data-test=\"%s\">\n", esc(test))
		for i, rec := range recs {
			b.WriteString("<tr>")
			for _, cell := range rec {
				switch {
				case i == 0:
					fmt.Fprintf(b, "<th>%s</th>", esc(cell))
				case isNumber(cell):
					fmt.Fprintf(b, "<td class=\"num\">%s</td>", esc(cell))
				default:
					fmt.Fprintf(b, "<td>%s</td>", esc(cell))
				}
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	return nil
}

// pictures writes the figures that fit the results as inline SVG.
func pictures(b *bytes.Buffer, heading string, results []record.RunResult) error {
	figs, notes := Figures(results)
	if len(figs) == 0 && len(notes) == 0 {
		return nil
	}
	fmt.Fprintf(b, "<h2>%s</h2>\n", esc(heading))
	for _, f := range figs {
		svg, err := inlineSVG(f.Fig)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Title, err)
		}
		fmt.Fprintf(b, "<figure>\n%s\n<figcaption>%s</figcaption>\n</figure>\n", svg, esc(f.Title))
	}
	for _, n := range notes {
		fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", esc(n))
	}
	return nil
}

// inlineSVG draws g as SVG without the XML declaration, for a page.
func inlineSVG(g plot.Drawable) (string, error) {
	var buf bytes.Buffer
	if err := plot.Write(g, &buf, "svg", svgWidth, svgHeight); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return strings.TrimSpace(s), nil
}

// replaySection sets the recorded run beside the replay: the paired table,
// what changed on the machine, each side's tables and a picture of both.
func replaySection(b *bytes.Buffer, run *record.Run) error {
	was := run.ReplayOf
	b.WriteString("<h2>Replay: recorded and now</h2>\n")
	fmt.Fprintf(b, "<p>This run replays %s (sha256 <code>%.12s</code>) recorded %s.</p>\n",
		esc(was.Script.Name), esc(was.Script.SHA256), esc(was.Start.Format(time.RFC3339)))
	t, err := record.ReplayTable(was.Results, run.Results)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "<pre class=\"replay\">%s</pre>\n", esc(t))
	if changes := record.EnvChanges(was.Env, run.Env); len(changes) > 0 {
		b.WriteString("<p>Differences from the recorded machine:</p>\n<ul>\n")
		for _, c := range changes {
			fmt.Fprintf(b, "<li>%s</li>\n", esc(c))
		}
		b.WriteString("</ul>\n")
	} else {
		b.WriteString("<p>Same machine settings as recorded.</p>\n")
	}
	if f, err := replayFigure(was.Results, run.Results); err == nil {
		svg, err := inlineSVG(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<figure>\n%s\n<figcaption>change in throughput, replayed against recorded</figcaption>\n</figure>\n", svg)
	}
	b.WriteString("<div class=\"side\">\n<div>\n<h3>Recorded</h3>\n")
	if err := resultTablesOf(b, was.Results, compactFields); err != nil {
		return err
	}
	b.WriteString("</div>\n<div>\n<h3>Replayed</h3>\n")
	if err := resultTablesOf(b, run.Results, compactFields); err != nil {
		return err
	}
	b.WriteString("</div>\n</div>\n")
	return nil
}

// replayFigure is the change in throughput of each result, replayed
// against recorded, in percent (results of different units share an axis
// so): one bar per result, in the order tests ended.
func replayFigure(was, now []record.RunResult) (*plot.Bars, error) {
	b := &plot.Bars{YLabel: "throughput change (%)"}
	for i := 0; i < len(was) && i < len(now); i++ {
		a, c := was[i].Result, now[i].Result
		if a.Throughput == 0 {
			continue
		}
		ch := 100 * (c.Throughput - a.Throughput) / a.Throughput
		b.Bars = append(b.Bars, plot.Bar{Label: fmt.Sprintf("%d %s", i+1, a.Test), Value: ch, Low: ch, High: ch})
	}
	if len(b.Bars) == 0 {
		return nil, fmt.Errorf("no result to compare")
	}
	return b, nil
}

// envTable writes env() of the client and of every server the run's tests
// talked to, side by side, one row per field.
func envTable(b *bytes.Buffer, run *record.Run) error {
	cols := []string{"client"}
	infos := []sysinfo.Info{run.Env}
	seen := map[string]bool{}
	for _, rr := range run.Results {
		if rr.ServerEnv == nil {
			continue
		}
		j, _ := json.Marshal(rr.ServerEnv)
		if seen[string(j)] {
			continue
		}
		seen[string(j)] = true
		name := "server"
		if rr.Result.RemoteAddress != "" {
			name += " " + rr.Result.RemoteAddress
		}
		cols = append(cols, name)
		infos = append(infos, *rr.ServerEnv)
	}
	if len(cols) == 1 {
		cols[0] = "client (no test had a control connection to report the server's)"
	}
	flat := make([]map[string]string, len(infos))
	var keys []string
	known := map[string]bool{}
	for i, info := range infos {
		m, err := flatten(info)
		if err != nil {
			return err
		}
		flat[i] = m
		for k := range m {
			if !known[k] {
				known[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	b.WriteString("<table class=\"env\">\n<tr><th>env()</th>")
	for _, c := range cols {
		fmt.Fprintf(b, "<th>%s</th>", esc(c))
	}
	b.WriteString("</tr>\n")
	for _, k := range keys {
		fmt.Fprintf(b, "<tr><td>%s</td>", esc(k))
		for _, m := range flat {
			fmt.Fprintf(b, "<td>%s</td>", esc(m[k]))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	return nil
}

// flatten is env() as name: value, sysctls by their full names.
func flatten(info sysinfo.Info) (map[string]string, error) {
	j, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			for sk, sv := range sub {
				out[sk] = fmt.Sprint(sv)
			}
			continue
		}
		out[k] = fmt.Sprint(v)
	}
	return out, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func esc(s string) string { return html.EscapeString(s) }

// checksSection is the run's checks as a table, failed ones first in
// the eye by their verdict; nothing without checks.
func checksSection(b *bytes.Buffer, run *record.Run) {
	if len(run.Checks) == 0 {
		return
	}
	b.WriteString("<h2>Checks</h2>\n<table>\n<tr><th>check</th><th>verdict</th><th>measured</th><th>wanted</th></tr>\n")
	for _, c := range run.Checks {
		verdict := "pass"
		if !c.Pass {
			verdict = "<strong>FAIL</strong>"
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", esc(c.Name), verdict, esc(c.Measured), esc(c.Bound))
	}
	b.WriteString("</table>\n")
}
