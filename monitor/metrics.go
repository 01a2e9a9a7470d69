// Package monitor runs one script over and over (`netscript monitor`):
// never two runs at once, each start jittered, a failed run counted and
// the loop going on, and the latest run's figures served to Prometheus
// through its Go client library. It knows nothing of Starlark: the front
// end gives it a function that runs the script once.
package monitor

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"netscript/engine/result"
	"netscript/session"
)

// Outcome is what one run of the script produced.
type Outcome struct {
	Results []*result.Result
	Checks  []session.Check
}

// labels a figure of a test carries: what a user groups by.
var testLabels = []string{"workload", "host", "brand"}

var (
	descThroughput = prometheus.NewDesc("netscript_throughput",
		"Throughput of the latest run's test, in the units label (Trans/s or 10^6bits/s).",
		append(append([]string(nil), testLabels...), "units"), nil)
	descLatency = prometheus.NewDesc("netscript_latency_seconds",
		"Latency of a transaction in the latest run's test: the percentiles it measured, its count and sum.",
		testLabels, nil)
	descTransactions = prometheus.NewDesc("netscript_transactions",
		"Transactions the latest run's test completed.", testLabels, nil)
	descCheckPass = prometheus.NewDesc("netscript_check_pass",
		"1 when the check passed in the latest run, 0 when it failed.",
		append([]string{"check"}, testLabels...), nil)
	descCheckValue = prometheus.NewDesc("netscript_check_value",
		"The value the check measured in the latest run (absent when it measured none).",
		append([]string{"check"}, testLabels...), nil)
)

// figures is the Prometheus collector of the latest successful run's
// figures. It builds constant metrics from a snapshot at every scrape, so
// a test or check the script no longer runs leaves no stale series.
type figures struct {
	mu   sync.Mutex
	last Outcome
}

// set replaces the snapshot.
func (f *figures) set(o Outcome) {
	f.mu.Lock()
	f.last = o
	f.mu.Unlock()
}

// Describe sends the descriptors of every metric figures gives.
func (f *figures) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descThroughput, descLatency, descTransactions, descCheckPass, descCheckValue} {
		ch <- d
	}
}

// Collect sends the metrics of the latest snapshot. Two tests with the
// same labels (a loop over one workload) give the last one's figures.
func (f *figures) Collect(ch chan<- prometheus.Metric) {
	f.mu.Lock()
	o := f.last
	f.mu.Unlock()
	type key struct{ workload, host, brand string }
	latest := map[key]*result.Result{}
	var order []key
	for _, r := range o.Results {
		k := key{strings.ToLower(r.Test), r.Config.Host, r.Brand}
		if k.host == "" {
			k.host = "embedded"
		}
		if _, ok := latest[k]; !ok {
			order = append(order, k)
		}
		latest[k] = r
	}
	for _, k := range order {
		r := latest[k]
		lv := []string{k.workload, k.host, k.brand}
		ch <- prometheus.MustNewConstMetric(descThroughput, prometheus.GaugeValue, r.Throughput, append(lv, r.Units)...)
		if r.Units == result.UnitsTrans {
			ch <- prometheus.MustNewConstMetric(descTransactions, prometheus.GaugeValue, float64(r.Transactions), lv...)
		}
		if l := r.Latency; l != nil && l.Count > 0 {
			const us = 1e-6
			q := map[float64]float64{0.5: l.P50 * us, 0.9: l.P90 * us, 0.99: l.P99 * us, 0.999: l.P999 * us}
			ch <- prometheus.MustNewConstSummary(descLatency, l.Count, l.Mean*us*float64(l.Count), q, lv...)
		}
	}
	seen := map[string]bool{}
	for i := len(o.Checks) - 1; i >= 0; i-- { // the last of a name wins
		c := o.Checks[i]
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		host := c.Host
		if host == "" && c.Test != "" {
			host = "embedded"
		}
		lv := []string{c.Name, strings.ToLower(c.Test), host, c.Brand}
		pass := 0.0
		if c.Pass {
			pass = 1
		}
		ch <- prometheus.MustNewConstMetric(descCheckPass, prometheus.GaugeValue, pass, lv...)
		if c.Value != nil {
			ch <- prometheus.MustNewConstMetric(descCheckValue, prometheus.GaugeValue, *c.Value, lv...)
		}
	}
}

// counters are the monitor's own metrics: runs by outcome, checks failed,
// the last run's time and length.
type counters struct {
	runs         *prometheus.CounterVec
	checksFailed *prometheus.CounterVec
	lastRun      prometheus.Gauge
	lastSuccess  prometheus.Gauge
	duration     prometheus.Gauge
}

func newCounters(reg prometheus.Registerer) *counters {
	c := &counters{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "netscript_runs_total",
			Help: "Runs of the script, by status: ok (ran to its end), checks_failed (ran to its end, a check failed), failed (stopped with an error)."},
			[]string{"status"}),
		checksFailed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "netscript_check_failures_total",
			Help: "Runs in which the check failed."}, []string{"check"}),
		lastRun: prometheus.NewGauge(prometheus.GaugeOpts{Name: "netscript_last_run_timestamp_seconds",
			Help: "When the latest run ended, in seconds since the epoch."}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "netscript_last_run_success",
			Help: "1 when the latest run ran to its end, 0 when it stopped with an error (its figures are then the previous run's)."}),
		duration: prometheus.NewGauge(prometheus.GaugeOpts{Name: "netscript_last_run_duration_seconds",
			Help: "How long the latest run took."}),
	}
	for _, s := range []string{"ok", "checks_failed", "failed"} {
		c.runs.WithLabelValues(s) // every status is a series from the start, so rate() sees its first run
	}
	reg.MustRegister(c.runs, c.checksFailed, c.lastRun, c.lastSuccess, c.duration)
	return c
}

// record counts one run that ended at end after took.
func (c *counters) record(o Outcome, err error, end time.Time, took time.Duration) {
	c.lastRun.Set(float64(end.UnixNano()) / 1e9)
	c.duration.Set(took.Seconds())
	if err != nil {
		c.runs.WithLabelValues("failed").Inc()
		c.lastSuccess.Set(0)
		return
	}
	c.lastSuccess.Set(1)
	status := "ok"
	for _, ch := range o.Checks {
		if !ch.Pass {
			status = "checks_failed"
			c.checksFailed.WithLabelValues(ch.Name).Inc()
		}
	}
	c.runs.WithLabelValues(status).Inc()
}
