package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"netscript/engine/childproc"
)

// startLogged starts cmd and returns a channel of the first match of re
// in its stderr (its first group), which it copies into log. The copy is
// cmd's own Stderr writer, so cmd.Wait returns only once every line is in
// log: a test that reads log after Wait sees the process's last words.
func startLogged(t *testing.T, cmd *exec.Cmd, re *regexp.Regexp, log *syncBuffer) <-chan string {
	t.Helper()
	w := &matchWriter{log: log, re: re, found: make(chan string, 1)}
	cmd.Stderr = w
	if err := childproc.Start(cmd); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	return w.found
}

// matchWriter copies a process's output into log and sends the first
// match of re in a whole line on found.
type matchWriter struct {
	log   *syncBuffer
	re    *regexp.Regexp
	found chan string
	mu    sync.Mutex
	line  []byte // a line not yet ended
	sent  bool
}

func (w *matchWriter) Write(p []byte) (int, error) {
	w.log.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			break
		}
		if m := w.re.FindSubmatch(w.line[:i]); !w.sent && m != nil {
			w.found <- string(m[1])
			w.sent = true
		}
		w.line = w.line[i+1:]
	}
	return len(p), nil
}

// promQuery asks Prometheus's HTTP API for an instant query and returns
// each series' labels and value.
func promQuery(prom, q string) ([]map[string]string, []float64, error) {
	resp, err := http.Get("http://" + prom + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, nil, err
	}
	var ls []map[string]string
	var vs []float64
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("value %v: %v", r.Value[1], err)
		}
		ls, vs = append(ls, r.Metric), append(vs, v)
	}
	return ls, vs, nil
}

// waitQuery waits until q returns one series for which ok holds.
func waitQuery(t *testing.T, prom, q string, ok func(map[string]string, float64) bool) (map[string]string, float64) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		ls, vs, err := promQuery(prom, q)
		if err == nil {
			for i := range ls {
				if ok(ls[i], vs[i]) {
					return ls[i], vs[i]
				}
			}
			last = fmt.Sprint(ls, vs)
		} else {
			last = err.Error()
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("Prometheus never answered %s as wanted; last: %s", q, last)
	return nil, 0
}

// TestMonitorPrometheus starts `netscript monitor` and Debian's Prometheus
// scraping it (both on ports the kernel picks), and holds what Prometheus
// stores: the series with the labels a user groups by and the values the
// runs measured (a fixed count of transactions), a run that fails counted
// while the monitor goes on, and a clean stop on SIGTERM.
func TestMonitorPrometheus(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus (apt-get install prometheus; .ci/run does)")
	}
	dir := t.TempDir()
	flag := filepath.Join(dir, "flag.star")
	setFlag := func(broken bool) {
		src := "broken = False\n"
		if broken {
			src = "broken = True\n"
		}
		if err := os.WriteFile(flag, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setFlag(false)
	sc := filepath.Join(dir, "mon.star")
	if err := os.WriteFile(sc, []byte(`load("flag.star", "broken")
r = tcp_rr(transactions=300, brand="mon")
check("txns", r.transactions, at_least=300, result=r)
check("slow", r.latency.p50, at_least="1h", result=r)
if broken:
    fail("broken on purpose")
`), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var monLog, promLog syncBuffer
	mon := exec.CommandContext(ctx, bin, "monitor", sc, "--every", "1s", "--metrics-listen", "127.0.0.1:0")
	mon.Dir = dir
	monAddr := startLogged(t, mon, regexp.MustCompile(`metrics on http://([0-9.:]+)/metrics`), &monLog)
	monDone := make(chan error, 1)
	go func() { monDone <- mon.Wait() }()
	defer func() {
		if t.Failed() {
			t.Logf("monitor:\n%s\nprometheus:\n%s", monLog.String(), promLog.String())
		}
	}()
	var target string
	select {
	case target = <-monAddr:
	case <-time.After(60 * time.Second):
		t.Fatalf("monitor never said where its metrics are:\n%s", monLog.String())
	}

	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: netscript
    static_configs:
      - targets: [%q]
`, target)), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := exec.CommandContext(ctx, promBin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:0")
	promAddr := startLogged(t, prom, regexp.MustCompile(`msg="Listening on" address=([0-9.:]+)`), &promLog)
	defer func() { prom.Process.Kill(); prom.Wait() }()
	var api string
	select {
	case api = <-promAddr:
	case <-time.After(60 * time.Second):
		t.Fatalf("prometheus never said where it listens:\n%s", promLog.String())
	}

	ls, v := waitQuery(t, api, `netscript_transactions`, func(map[string]string, float64) bool { return true })
	if ls["workload"] != "tcp_rr" || ls["host"] != "embedded" || ls["brand"] != "mon" || v != 300 {
		t.Errorf("netscript_transactions: %v = %v, want workload tcp_rr, host embedded, brand mon = 300", ls, v)
	}
	waitQuery(t, api, `netscript_latency_seconds_count{workload="tcp_rr",brand="mon"}`, func(_ map[string]string, v float64) bool { return v == 300 })
	waitQuery(t, api, `netscript_latency_seconds{quantile="0.99",workload="tcp_rr"}`, func(_ map[string]string, v float64) bool { return v > 0 })
	waitQuery(t, api, `netscript_check_value{check="txns",workload="tcp_rr",brand="mon"}`, func(_ map[string]string, v float64) bool { return v == 300 })
	waitQuery(t, api, `netscript_check_pass{check="txns"}`, func(_ map[string]string, v float64) bool { return v == 1 })
	waitQuery(t, api, `netscript_check_pass{check="slow"}`, func(_ map[string]string, v float64) bool { return v == 0 })
	waitQuery(t, api, `netscript_runs_total{status="checks_failed"}`, func(_ map[string]string, v float64) bool { return v >= 1 })

	setFlag(true)
	waitQuery(t, api, `netscript_runs_total{status="failed"}`, func(_ map[string]string, v float64) bool { return v >= 2 })
	waitQuery(t, api, `netscript_last_run_success`, func(_ map[string]string, v float64) bool { return v == 0 })
	_, before := waitQuery(t, api, `netscript_runs_total{status="checks_failed"}`, func(map[string]string, float64) bool { return true })
	setFlag(false)
	waitQuery(t, api, `netscript_runs_total{status="checks_failed"}`, func(_ map[string]string, v float64) bool { return v > before })
	waitQuery(t, api, `netscript_last_run_success`, func(_ map[string]string, v float64) bool { return v == 1 })

	if err := mon.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-monDone:
		if err != nil {
			t.Errorf("monitor after SIGTERM: %v, want exit 0", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("monitor did not stop within 60 s of SIGTERM")
	}
	if !strings.Contains(monLog.String(), "netscript monitor: stopped") {
		t.Errorf("monitor did not say it stopped:\n%s", monLog.String())
	}
}
