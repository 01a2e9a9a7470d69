package latency

import (
	"fmt"
	"math"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/result"
)

// rpmResult is what one responsiveness() call measured.
type rpmResult struct {
	cfg                    *rpmConfig
	up, down               float64 // goodput each way, Mbit/s, over the last MAD intervals
	goodputConf, rpmConf   string
	rpm, foreignMs, selfMs float64
	idleMs                 float64
	upConns, downConns     int
}

// newRPM makes the value of a call from its run: the final figures over
// its last MAD intervals (section 5.3.1: "the final calculation ...
// considers the last MAD intervals worth of completed responsiveness
// probes"), each with the confidence label of section 5.4.1.
func newRPM(run *rpmRun, st *rpmState, idle *result.Result) (starlark.Value, error) {
	run.mu.Lock()
	defer run.mu.Unlock()
	cfg := run.cfg
	a, b := st.done-draftMAD, st.done-1
	f := run.responsivenessOver(a, b)
	up, down := run.goodputOver(a, b)
	res := &rpmResult{cfg: cfg, up: up, down: down, rpm: f.rpm, foreignMs: f.foreignMs, selfMs: f.selfMs,
		goodputConf: confidence(st.done, st.satDeclare), rpmConf: confidence(len(st.rpms), st.rpmStable),
		upConns: run.up, downConns: run.down, idleMs: math.NaN()}
	if idle != nil {
		res.idleMs = histTrimmedMean(idle.Hist, draftTMP) / 2
	}
	var ivs []starlark.Value
	for i, iv := range run.intervals[:min(st.done, len(run.intervals))] {
		d := starlark.NewDict(6)
		d.SetKey(starlark.String("t"), starlark.Float(float64(i+1)*cfg.id.Seconds()))
		u, w := run.goodputOver(i, i)
		d.SetKey(starlark.String("goodput"), starlark.Float(u+w))
		avg := starlark.Value(starlark.None)
		if i >= draftMAD-1 {
			u, w := run.goodputOver(i-draftMAD+1, i)
			avg = starlark.Float(u + w)
		}
		d.SetKey(starlark.String("moving_average"), avg)
		d.SetKey(starlark.String("rpm"), floatOrNone(run.responsivenessOver(i-draftMAD+1, i).rpm))
		d.SetKey(starlark.String("self_ms"), floatOrNone(trimmedMean(iv.self, draftTMP)))
		d.SetKey(starlark.String("connections"), starlark.MakeInt(iv.up+iv.down))
		ivs = append(ivs, d)
	}
	dirOr := func(on bool, v float64) starlark.Value {
		if !on {
			return starlark.None
		}
		return starlark.Float(v)
	}
	idleV := starlark.Value(starlark.None)
	if idle != nil {
		idleV = resultList([]*result.Result{idle}).Index(0)
	}
	attrs := starlark.StringDict{
		"rpm":                floatOrNone(math.Round(f.rpm)),
		"confidence":         starlark.String(res.rpmConf),
		"rating":             starlark.String(rating(f.rpm)),
		"foreign_rpm":        floatOrNone(rpm(f.foreignMs)),
		"loaded_rpm":         floatOrNone(rpm(f.selfMs)),
		"foreign_ms":         floatOrNone(f.foreignMs),
		"loaded_ms":          floatOrNone(f.selfMs),
		"foreign":            latencyFromHist(f.foreign),
		"goodput":            starlark.Float(up + down),
		"goodput_up":         dirOr(cfg.up, up),
		"goodput_down":       dirOr(cfg.down, down),
		"goodput_confidence": starlark.String(res.goodputConf),
		"idle_ms":            floatOrNone(res.idleMs),
		"idle_rpm":           floatOrNone(math.Round(rpm(res.idleMs))),
		"connections": structOf("responsiveness.connections", starlark.StringDict{
			"up": starlark.MakeInt(run.up), "down": starlark.MakeInt(run.down)}),
		"intervals": starlark.NewList(ivs),
		"interval":  starlark.Float(cfg.id.Seconds()),
		"elapsed":   starlark.Float(float64(st.done) * cfg.id.Seconds()),
		"direction": starlark.String(map[[2]bool]string{{true, true}: "both", {true, false}: "up", {false, true}: "down"}[[2]bool{cfg.up, cfg.down}]),
		"streams":   resultList(run.loads),
		"probes":    resultList(run.probes),
		"idle":      idleV,
	}
	return &value{typ: "responsiveness", attrs: attrs, text: res.text}, nil
}

// rating words an RPM as networkQuality's summary does; the bounds are
// netscript's: under 300 RPM (a round trip over 200 ms) is Low, under
// 1000 (over 60 ms) Medium.
func rating(r float64) string {
	switch {
	case math.IsNaN(r):
		return "unknown"
	case r < 300:
		return "Low"
	case r < 1000:
		return "Medium"
	}
	return "High"
}

// text is print()'s form, networkQuality's summary with its accuracy
// labels, and a line on how the load was made.
func (r *rpmResult) text() string {
	var b strings.Builder
	b.WriteString("==== SUMMARY ====\n")
	if r.cfg.up {
		fmt.Fprintf(&b, "Uplink capacity: %.3f Mbps (Accuracy: %s)\n", r.up, r.goodputConf)
	}
	if r.cfg.down {
		fmt.Fprintf(&b, "Downlink capacity: %.3f Mbps (Accuracy: %s)\n", r.down, r.goodputConf)
	}
	if math.IsNaN(r.rpm) {
		b.WriteString("Responsiveness: unknown (no probe answered under load)\n")
	} else {
		fmt.Fprintf(&b, "Responsiveness: %s (%.3f milliseconds | %.0f RPM) (Accuracy: %s)\n", rating(r.rpm), 60000/r.rpm, r.rpm, r.rpmConf)
	}
	if !math.IsNaN(r.idleMs) {
		fmt.Fprintf(&b, "Idle Latency: %.3f milliseconds | %.0f RPM\n", r.idleMs, rpm(r.idleMs))
	}
	fmt.Fprintf(&b, "Load: %d connection(s) up, %d down, intervals of %v; foreign probes %s, self probes %s (draft-ietf-ippm-responsiveness-09, TCP only)",
		r.upConns, r.downConns, r.cfg.id.Round(time.Millisecond), msOrNone(r.foreignMs), msOrNone(r.selfMs))
	return b.String()
}

// msOrNone is a round trip in ms, or "none" without probes.
func msOrNone(ms float64) string {
	if math.IsNaN(ms) {
		return "none"
	}
	return fmt.Sprintf("%.3f ms", ms)
}
