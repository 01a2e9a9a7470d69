package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/client/netservertest"
)

// shorten are the variables of netperf's example scripts set for a short
// run on loopback against a netserver at port: their own knobs, the
// length, iterations and sizes cut, the hosts and port pointed at it.
func shorten(port int) map[string]map[string]string {
	p := strconv.Itoa(port)
	scripts := map[string]string{
		"TEST_TIME": "1", "PORT": `"-p ` + p + `"`,
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range scripts {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	return map[string]map[string]string{
		"tcp_rr_script":     with(map[string]string{"STATS_STUFF": `"-i 3,3 -I 99,50"`, "RR_SIZES": `"1,1 128,8192"`, "SOCKET_SIZES": `"0"`}),
		"tcp_stream_script": with(map[string]string{"STATS_STUFF": `""`, "SOCKET_SIZES": `"128K"`, "SEND_SIZES": `"4096"`}),
		"udp_rr_script":     with(map[string]string{"STATS_STUFF": `""`, "RR_SIZES": `"1,1 100,200"`}),
		"udp_stream_script": with(map[string]string{"STATS_STUFF": `""`, "SEND_SIZES": `"1024"`}),
		"runemomni.sh": {"length": "1", "confidence": `""`, "netperf_CPUs": `"0"`, "netserver_CPUs": `"0"`,
			"control_host": `"127.0.0.1 -p ` + p + `"`, "remote_hosts": `"127.0.0.1"`, "reqs": `"64"`, "bursts": `"0"`},
	}
}

// copyScript writes a copy of netperf's example script name into dir with
// its variables set as vars says, and the listing of /proc at its end
// (runemomni.sh's) left out.
func copyScript(t *testing.T, name, dir string, vars map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(netservertest.Binary(t, "netperf")), "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if k, _, ok := strings.Cut(l, "="); ok && vars[k] != "" && !strings.ContainsAny(k, " \t$") {
			l = k + "=" + vars[k]
		}
		if strings.HasPrefix(l, "cat /proc/") {
			continue
		}
		out = append(out, l)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runExample runs a copy of an example script in its own directory, with
// netperf (linked as ./netperf there and first in PATH).
func runExample(t *testing.T, name, netperf string, vars map[string]string) string {
	t.Helper()
	if !strings.HasSuffix(name, ".sh") && vars["TEST_TIME"] == "" {
		t.Fatalf("%s: no TEST_TIME to shorten", name)
	}
	dir := t.TempDir()
	if err := os.Symlink(netperf, filepath.Join(dir, "netperf")); err != nil {
		t.Fatal(err)
	}
	script := copyScript(t, name, dir, vars)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{script, "127.0.0.1"}
	if name == "tcp_rr_script" {
		args = append(args, "CPU") // -c and -C, with LOC_CPU's and REM_CPU's rates
	}
	cmd := exec.CommandContext(ctx, "sh", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	if err := cmd.Run(); err != nil {
		t.Errorf("%s with %s: %v\n%s", name, netperf, err, o.String())
	}
	return o.String()
}

// TestExampleScripts runs netperf's example scripts (tcp_rr_script,
// tcp_stream_script, udp_rr_script, udp_stream_script, runemomni.sh),
// shortened by their own variables, with netperf 2.7.1 and with netscript
// as netperf against one netserver: the same lines and columns (figures
// masked; a confidence warning where only one run missed its target left
// out).
func TestExampleScripts(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	netperf := netservertest.Binary(t, "netperf")
	for name, vars := range shorten(port) {
		// One script at a time, netperf's and then netscript's:
		// runemomni.sh binds both ends to CPU 0 (-T 0,0), and a loaded CPU
		// 0 holding several of them sets a test up too slowly for
		// netserver's own timer, with either netperf.
		t.Run(name, func(t *testing.T) {
			want := runExample(t, name, netperf, vars)
			got := runExample(t, name, bin, vars)
			if !ranTest.MatchString(want) {
				t.Fatalf("netperf's %s ran no test:\n%s", name, want)
			}
			sameLines(t, strings.Split(want, "\n"), strings.Split(got, "\n"))
		})
	}
}

var (
	// ranTest finds a test's result line: numbers (a table) or a
	// CSV line of a test's figures.
	ranTest  = regexp.MustCompile(`(?m)^ *[0-9]+ +[0-9]+ |^(Stream|Datagram),`)
	figure   = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)
	uuidText = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// masked is a line with its figures, UUIDs and the program's path
// replaced, and the widths of its figures (in order).
func masked(l string) (string, []int) {
	l = uuidText.ReplaceAllString(l, "UUID")
	var widths []int
	for _, m := range figure.FindAllString(l, -1) {
		widths = append(widths, len(m))
	}
	return figure.ReplaceAllString(l, "N"), widths
}

// sameLines compares a script's output with netperf's: the same lines
// (blank-collapsed, figures masked) and, where a line's figures are as
// wide as netperf's, the same columns.
func sameLines(t *testing.T, want, got []string) {
	t.Helper()
	// Whether a short run meets its confidence target is chance: the
	// warnings are left out of both.
	want, got = noBang(want), noBang(got)
	if len(want) != len(got) {
		t.Fatalf("%d lines, netperf's %d:\n%s\nnetperf's:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		w, ww := masked(want[i])
		g, gw := masked(got[i])
		switch {
		case strings.Join(strings.Fields(w), " ") != strings.Join(strings.Fields(g), " "):
			t.Errorf("line %d:\n got %q\nwant %q", i+1, got[i], want[i])
		case slices.Equal(ww, gw) && w != g:
			t.Errorf("line %d: other columns:\n got %q\nwant %q", i+1, got[i], want[i])
		}
	}
}

// noBang drops confidence warning blocks (their !!! lines and the blank
// line after each).
func noBang(ls []string) []string {
	var out []string
	skip := false
	for _, l := range ls {
		if strings.HasPrefix(l, "!!!") {
			skip = true
			continue
		}
		if skip && l == "" {
			skip = false
			continue
		}
		skip = false
		out = append(out, l)
	}
	return out
}
