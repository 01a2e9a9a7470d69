package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/record"
)

// starvingServer listens on loopback and accepts connections to which it
// never answers, until the test ends: a server that withholds its answer.
func starvingServer(t *testing.T) int {
	t.Helper()
	done := make(chan struct{})
	port := fakeServer(t, func(c net.Conn) { <-done })
	t.Cleanup(func() { close(done) })
	return port
}

// sweep is a sweep of three cells whose second goes to the starving
// server; keep is what its calls add (", keep_going=True" or nothing).
func sweep(keep string) string {
	return `port = int(args["port"])
rs = []
for b in [0, 1, 2]:
    if b == 1:
        rs.append(tcp_rr(duration=0.2, burst=b, brand="starved", host="127.0.0.1", port=port` + keep + `))
    else:
        rs.append(tcp_rr(transactions=20, burst=b, brand="cell%d" % b` + keep + `))
print(table(rs, ["brand", "throughput"]))
print(csv(rs, ["brand", "throughput"]))
print("oks", [r.ok for r in rs])
`
}

// TestKeepGoing: a sweep one of whose cells starves finishes every other
// cell when its calls say keep_going=True, and when an unedited script is
// run with --keep-going; the failed cell shows as failed with its error
// in table, csv, JSON lines, the record and the report, and the run ends
// with one line and exit status 3. Without either, the starved cell ends
// the script as before.
func TestKeepGoing(t *testing.T) {
	port := strconv.Itoa(starvingServer(t))
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		keep  string
		flags []string
	}{
		{"option", ", keep_going=True", nil},
		{"flag", "", []string{"--keep-going"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := filepath.Join(dir, c.name+".star")
			if err := os.WriteFile(script, []byte(sweep(c.keep)), 0o644); err != nil {
				t.Fatal(err)
			}
			rec, jl := filepath.Join(dir, c.name+".json"), filepath.Join(dir, c.name+".jsonl")
			// The script names 127.0.0.1 itself: the person running it allows it.
			args := append([]string{"-q", "--allow-net=127.0.0.1", "--record", rec, "--json-lines", jl}, c.flags...)
			r := netscript(t, 2*time.Minute, append(args, script, "port="+port)...)
			checkKeptGoing(t, r, rec, jl)
		})
	}
	t.Run("neither", func(t *testing.T) {
		script := filepath.Join(dir, "neither.star")
		if err := os.WriteFile(script, []byte(sweep("")), 0o644); err != nil {
			t.Fatal(err)
		}
		r := netscript(t, 2*time.Minute, "-q", "--allow-net=127.0.0.1", script, "port="+port)
		oneLine(t, r, exitScriptError, "tcp_rr: 127.0.0.1:"+port)
		if strings.Contains(r.stdout, "oks") {
			t.Errorf("the script went on past the starved cell:\n%s", r.stdout)
		}
	})
}

// checkKeptGoing checks what a run that kept going past the starved cell
// printed, recorded and reported.
func checkKeptGoing(t *testing.T, r ran, rec, jl string) {
	t.Helper()
	oneLine(t, r, exitTestsFailed, "1 test failed and the run kept going; the first: tcp_rr: 127.0.0.1:")
	if !strings.Contains(r.stdout, "oks [True, False, True]") {
		t.Errorf("not every other cell finished:\n%s", r.stdout)
	}
	lines := strings.Split(r.stdout, "\n")
	var table, csv string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "starved "):
			table = l
		case strings.HasPrefix(l, "starved,"):
			csv = l
		}
	}
	if f := strings.Fields(table); len(f) != 2 || f[1] != "failed" {
		t.Errorf("table row of the starved cell %q, want its throughput failed:\n%s", table, r.stdout)
	}
	if !strings.Contains(r.stdout, "row 2 failed: tcp_rr: 127.0.0.1:") {
		t.Errorf("table does not say why row 2 failed:\n%s", r.stdout)
	}
	if !strings.HasPrefix(csv, `starved,,"tcp_rr: 127.0.0.1:`) {
		t.Errorf("csv row of the starved cell %q, want no throughput and the error:\n%s", csv, r.stdout)
	}
	for _, cell := range []string{"cell0 ", "cell2 "} {
		for _, l := range lines {
			if strings.HasPrefix(l, cell) && strings.Contains(l, "failed") {
				t.Errorf("a cell that ran shows as failed: %q", l)
			}
		}
	}

	// JSON lines: the starved cell's line has its error and no figures.
	b, err := os.ReadFile(jl)
	if err != nil {
		t.Fatal(err)
	}
	var starved map[string]any
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("json line %q: %v", l, err)
		}
		if m["kind"] == "result" {
			n++
		}
		if m["brand"] == "starved" {
			starved = m
		}
	}
	if n != 3 || starved == nil {
		t.Fatalf("json lines: %d results, starved %v:\n%s", n, starved, b)
	}
	res, _ := starved["result"].(map[string]any)
	if e, _ := starved["error"].(string); !strings.Contains(e, "127.0.0.1:") || res == nil ||
		res["ok"] != false || res["throughput"] != nil || res["error"] != e {
		t.Errorf("json line of the starved cell: %v", starved)
	}

	// The record: three results, the starved one failed, and the run's
	// status says it kept going past it.
	run, err := record.ReadRun(rec)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != record.RunFailed || !strings.Contains(run.Error, "1 test failed") || len(run.Results) != 3 {
		t.Fatalf("record: status %q error %q, %d results", run.Status, run.Error, len(run.Results))
	}
	for _, rr := range run.Results {
		failed := rr.Result.Brand == "starved"
		if rr.Result.Failed() != failed || (rr.Error != "") != failed || rr.Partial {
			t.Errorf("record: %s failed %v error %q partial %v", rr.Result.Brand, rr.Result.Failed(), rr.Error, rr.Partial)
		}
	}
	show := netscript(t, 30*time.Second, "show", rec)
	if show.code != 0 || !strings.Contains(show.stdout, "row 2 failed: tcp_rr: 127.0.0.1:") {
		t.Errorf("show (exit %d) does not show the failed cell:\n%s%s", show.code, show.stdout, show.stderr)
	}

	// The report: the error in its tables, and a note that the cell is
	// not drawn.
	html := rec + ".html"
	rep := netscript(t, 30*time.Second, "report", rec, "-o", html)
	if rep.code != 0 {
		t.Fatalf("report: exit %d: %s", rep.code, rep.stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `TCP_RR &#34;starved&#34; failed and is not drawn: tcp_rr: 127.0.0.1:`) &&
		!strings.Contains(string(page), `TCP_RR "starved" failed and is not drawn: tcp_rr: 127.0.0.1:`) {
		t.Errorf("report does not say the starved cell failed:\n%s", page)
	}
}
