package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"netscript/engine/client/netservertest"
	"netscript/engine/sock/socktest"
)

// flentTests are the flent tests run against each netperf: one upload with
// ping, each direction alone, and rrul (four flows each way, three UDP
// round trips with their markings, ICMP ping).
var flentTests = []string{"tcp_1up", "tcp_download", "tcp_upload", "rrul"}

// flentData is what a test's .flent.gz holds that the comparison reads:
// each series' points, and each series' metadata.
type flentData struct {
	Results  map[string][]*float64 `json:"results"`
	Metadata struct {
		SeriesMeta map[string]map[string]any `json:"SERIES_META"`
	} `json:"metadata"`
}

// flentBinary is Debian's flent, which CI installs; without it the tests
// skip outside CI.
func flentBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("flent")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("flent is not installed, and CI must have it (.ci/run installs Debian's flent package)")
		}
		t.Skip("flent is not installed (apt-get install flent)")
	}
	return p
}

// runFlent runs every flent test at once with netperf (a program of that
// name is put first in PATH) against the netperf control port at port,
// two seconds each, and reads what each wrote.
func runFlent(t *testing.T, netperf string, port int) map[string]*flentData {
	t.Helper()
	flent := flentBinary(t)
	dir := t.TempDir()
	if err := os.Symlink(netperf, filepath.Join(dir, "netperf")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := map[string]*flentData{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, test := range flentTests {
		wg.Go(func() {
			data := filepath.Join(dir, test)
			os.Mkdir(data, 0o755)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, flent, test, "-H", "127.0.0.1", "--netperf-control-port", strconv.Itoa(port),
				"-l", "2", "-d", "1", "-D", data, "-q")
			cmd.Env = env
			var log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &log, &log
			if err := cmd.Run(); err != nil {
				t.Errorf("flent %s with %s: %v\n%s", test, netperf, err, log.String())
				return
			}
			files, _ := filepath.Glob(filepath.Join(data, "*.flent.gz"))
			if len(files) != 1 {
				t.Errorf("flent %s with %s wrote %d data files\n%s", test, netperf, len(files), log.String())
				return
			}
			d, err := readFlent(files[0])
			if err != nil {
				t.Errorf("flent %s: %v", test, err)
				return
			}
			mu.Lock()
			out[test] = d
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

func readFlent(path string) (*flentData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var d flentData
	if err := json.NewDecoder(z).Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

// compareFlent checks a run's data against the reference's: every series
// the reference has, each with data points, and the same metadata keys.
func compareFlent(t *testing.T, who string, want, got map[string]*flentData) {
	t.Helper()
	for _, test := range flentTests {
		w, g := want[test], got[test]
		if w == nil || g == nil {
			continue // the run's failure was reported
		}
		for series, points := range w.Results {
			if points == nil {
				continue
			}
			gp, ok := g.Results[series]
			if !ok {
				t.Errorf("%s: flent %s has no series %q", who, test, series)
				continue
			}
			n := 0
			for _, p := range gp {
				if p != nil {
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s: flent %s: series %q has no data point", who, test, series)
			}
			if wk, gk := keys(w.Metadata.SeriesMeta[series]), keys(g.Metadata.SeriesMeta[series]); !slices.Equal(wk, gk) {
				t.Errorf("%s: flent %s: series %q has metadata %v, netperf's %v", who, test, series, gk, wk)
			}
		}
	}
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

// TestFlent runs flent's tcp_1up, tcp_download, tcp_upload and rrul on
// loopback three ways: netperf 2.7.1 against netserver (what flent is
// made for), netscript in netperf's place against the same netserver,
// and netperf 2.7.1 against `netscript serve --netperf-listen`. Each of
// the last two produces every series the first does, each with data
// points, and the same metadata keys (flent reads them from netperf's
// -k selectors and its DUMP_TCP_INFO lines).
func TestFlent(t *testing.T) {
	flentBinary(t)
	netperf := netservertest.Binary(t, "netperf")
	port := netservertest.Start(t, "127.0.0.1")
	want := runFlent(t, netperf, port)
	if t.Failed() {
		t.FailNow()
	}
	compareFlent(t, "netscript as netperf", want, runFlent(t, bin, port))
	np := socktest.Reserve(t, false)
	watchDaemon(t, exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--netperf-listen", fmt.Sprintf("127.0.0.1:%d", np)), 0)
	compareFlent(t, "netperf against serve --netperf-listen", want, runFlent(t, netperf, np))
}
