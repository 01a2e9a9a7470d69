package latency

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
)

// rrulResult is what one rrul() call measured.
type rrulResult struct {
	cfg                *rrulConfig
	up, down           []*result.Result // the streams, in the order of their marks
	idle, loaded       []*result.Result // the probes: TCP, then UDP
	idleLat, loadedLat *result.Latency  // the probes' merged latency, nil if none
}

// newRRUL makes the value of a call from the idle phase's results and the
// loaded phase's (the streams, then the probes).
func newRRUL(cfg *rrulConfig, idle, loaded []*result.Result) (starlark.Value, error) {
	r := &rrulResult{cfg: cfg, idle: idle}
	n := len(loaded) - len(idle)
	for _, res := range loaded[:n] {
		if res.Units == result.UnitsBits && res.Test == "TCP_MAERTS" {
			r.down = append(r.down, res)
		} else {
			r.up = append(r.up, res)
		}
	}
	r.loaded = loaded[n:]
	idleV, idleLat, err := latencyOf(r.idle)
	if err != nil {
		return nil, err
	}
	loadedV, loadedLat, err := latencyOf(r.loaded)
	if err != nil {
		return nil, err
	}
	r.idleLat, r.loadedLat = idleLat, loadedLat
	ratio := starlark.Value(starlark.None)
	if idleLat != nil && loadedLat != nil && idleLat.P50 > 0 {
		ratio = starlark.Float(loadedLat.P50 / idleLat.P50)
	}
	start := idle[0].Start
	attrs := starlark.StringDict{
		"test":      starlark.String(cfg.preset),
		"host":      starlark.String(cfg.target.host),
		"streams":   starlark.MakeInt(cfg.streams),
		"direction": starlark.String(cfg.direction()),
		"dscp":      starlark.Bool(cfg.dscp),
		"duration":  starlark.Float(cfg.duration.Seconds()),
		"idle":      starlark.Float(cfg.idle.Seconds()),
		"interval":  starlark.Float(cfg.interval.Seconds()),
		"start":     starlark.Float(start),
		"up":        resultList(r.up),
		"down":      resultList(r.down),
		"probes": structOf("rrul.probes", starlark.StringDict{
			"idle": resultList(r.idle), "loaded": resultList(r.loaded)}),
		"latency": structOf("rrul.latency", starlark.StringDict{
			"idle": idleV, "loaded": loadedV, "ratio": ratio}),
		"throughput": structOf("rrul.throughput", starlark.StringDict{
			"up": starlark.Float(sum(r.up)), "down": starlark.Float(sum(r.down)), "units": starlark.String("Mbit/s")}),
		"ping": r.ping(start),
	}
	attrs["panels"] = r.panels(attrs)
	return &value{typ: "rrul", attrs: attrs, text: r.text}, nil
}

// direction is the config's direction as direction= takes it.
func (c *rrulConfig) direction() string {
	switch {
	case c.up && c.down:
		return "both"
	case c.up:
		return "up"
	}
	return "down"
}

// sum is the streams' throughput added up, Mbit/s.
func sum(rs []*result.Result) float64 {
	t := 0.0
	for _, r := range rs {
		t += r.Throughput
	}
	return t
}

// ping is each probe's latency over time, idle then loaded on one clock
// from start, as flent's "Ping (ms)" series: one dict per probe in the
// form timeseries() draws (brand, start, units, and interim samples with
// t and latency in ms). A closed-loop probe's transactions follow one
// another, so the mean latency over a sample's interval is the interval
// over the transactions completed in it: 1000 / throughput ms.
func (r *rrulResult) ping(start float64) *starlark.List {
	var lines []starlark.Value
	for k := range r.idle {
		var samples []starlark.Value
		for _, res := range []*result.Result{r.idle[k], r.loaded[k]} {
			for _, s := range res.Interim {
				if !(s.Throughput > 0) {
					continue
				}
				d := starlark.NewDict(3)
				d.SetKey(starlark.String("t"), starlark.Float(res.Start-start+s.T))
				d.SetKey(starlark.String("latency"), starlark.Float(1000/s.Throughput))
				d.SetKey(starlark.String("interval"), starlark.Float(s.Interval))
				samples = append(samples, d)
			}
		}
		line := starlark.NewDict(5)
		line.SetKey(starlark.String("test"), starlark.String(strings.ToLower(r.idle[k].Test)))
		line.SetKey(starlark.String("brand"), starlark.String(r.idle[k].Brand))
		line.SetKey(starlark.String("start"), starlark.Float(start))
		line.SetKey(starlark.String("units"), starlark.String("ms"))
		line.SetKey(starlark.String("interim"), starlark.NewList(samples))
		lines = append(lines, line)
	}
	return starlark.NewList(lines)
}

// pingPanel is the title of the probes' panel in panels.
const pingPanel = "probe latency (ms)"

// panels is flent's rrul picture as timeseries() draws it from a dict:
// the download, the upload (those loaded) and the probes' latency, one
// above the other on one clock.
func (r *rrulResult) panels(attrs starlark.StringDict) *starlark.Dict {
	d := starlark.NewDict(3)
	if len(r.down) > 0 {
		d.SetKey(starlark.String("TCP download"), attrs["down"])
	}
	if len(r.up) > 0 {
		d.SetKey(starlark.String("TCP upload"), attrs["up"])
	}
	d.SetKey(starlark.String(pingPanel), attrs["ping"])
	return d
}

// text is print()'s summary: throughput each way with each stream's
// share, and the probes' latency idle and loaded.
func (r *rrulResult) text() string {
	var b strings.Builder
	c := r.cfg
	where := c.target.host
	if where == "" {
		where = "the embedded server"
	}
	marks := "best effort"
	if c.dscp {
		marks = "DSCP marked"
	}
	each := "each way"
	if !(c.up && c.down) {
		each = map[bool]string{true: "up", false: "down"}[c.up]
	}
	fmt.Fprintf(&b, "%s to %s: %d stream(s) %s, %s; %.1f s idle, then %.1f s loaded\n",
		c.preset, where, c.streams, each, marks, c.idle.Seconds(), c.duration.Seconds())
	for _, d := range []struct {
		label string
		rs    []*result.Result
	}{{"download", r.down}, {"upload", r.up}} {
		if len(d.rs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %-9s %8.2f Mbit/s ", d.label, sum(d.rs))
		var parts []string
		for _, res := range d.rs {
			parts = append(parts, fmt.Sprintf("%s %.2f", streamLabel(res.Brand), res.Throughput))
		}
		fmt.Fprintf(&b, " (%s)\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "  latency   idle   %s\n", latencyLine(r.idleLat))
	fmt.Fprintf(&b, "            loaded %s", latencyLine(r.loadedLat))
	if r.idleLat != nil && r.loadedLat != nil && r.idleLat.P50 > 0 {
		fmt.Fprintf(&b, ": %.0fx idle at p50", r.loadedLat.P50/r.idleLat.P50)
	}
	return b.String()
}

// streamLabel is a stream's brand without "TCP upload "/"TCP download ".
func streamLabel(brand string) string {
	f := strings.Fields(brand)
	if len(f) > 2 {
		return strings.Join(f[2:], " ")
	}
	return brand
}

// latencyLine is a latency in ms as the summary shows it.
func latencyLine(l *result.Latency) string {
	if l == nil {
		return "no probe answered"
	}
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  (%d probes)", ms(l.P50), ms(l.P90), ms(l.P99), l.Count)
}

// ms formats microseconds as milliseconds.
func ms(us float64) string {
	switch {
	case us >= 100000:
		return fmt.Sprintf("%.0f ms", us/1000)
	case us >= 1000:
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	return fmt.Sprintf("%.3f ms", us/1000)
}
