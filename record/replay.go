package record

import (
	"fmt"
	"sort"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/sysinfo"
	"netscript/starlib/output"
)

// ReplayTable lays the results of a replay beside the recorded ones, paired
// in the order the tests ended: throughput then and now, the change in
// percent, and p99 latency then and now.
func ReplayTable(recorded, replayed []RunResult) (string, error) {
	n := max(len(recorded), len(replayed))
	rows := make([]starlark.Value, n)
	branded := false
	for i := 0; i < n; i++ {
		var was, now *result.Result
		if i < len(recorded) {
			was = recorded[i].Result
		}
		if i < len(replayed) {
			now = replayed[i].Result
		}
		row := starlark.NewDict(8)
		row.SetKey(starlark.String("n"), starlark.MakeInt(i+1))
		ref := was
		if ref == nil {
			ref = now
		}
		row.SetKey(starlark.String("test"), starlark.String(ref.Test))
		row.SetKey(starlark.String("brand"), starlark.String(ref.Brand))
		branded = branded || ref.Brand != ""
		row.SetKey(starlark.String("recorded"), replaySide(was))
		row.SetKey(starlark.String("replayed"), replaySide(now))
		change := starlark.Value(starlark.None)
		if was != nil && now != nil && was.Throughput != 0 {
			change = starlark.Float(100 * (now.Throughput - was.Throughput) / was.Throughput)
		}
		row.SetKey(starlark.String("change"), change)
		rows[i] = row
	}
	fields := []string{"n", "test", "recorded.rate", "replayed.rate", "change", "recorded.latency.p99", "replayed.latency.p99"}
	if branded {
		fields = append([]string{"brand"}, fields...)
	}
	return output.Table(rows, fields)
}

// replaySide is one side of a ReplayTable row: rate and latency.p99, None when
// that side has no such result.
func replaySide(r *result.Result) *starlark.Dict {
	d, lat := starlark.NewDict(2), starlark.NewDict(1)
	rate, p99 := starlark.Value(starlark.None), starlark.Value(starlark.None)
	if r != nil {
		rate = starlark.Float(r.Throughput)
		if r.Latency != nil && r.Latency.Count > 0 {
			p99 = starlark.Float(r.Latency.P99)
		}
	}
	lat.SetKey(starlark.String("p99"), p99)
	d.SetKey(starlark.String("rate"), rate)
	d.SetKey(starlark.String("latency"), lat)
	return d
}

// EnvChanges lists what differs between the machine a run was recorded on
// and this one, one "what: then -> now" line each: kernel, CPU, governor,
// every sysctl, and the netscript and Go builds.
func EnvChanges(was, now sysinfo.Info) []string {
	var out []string
	diff := func(what, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: %s -> %s", what, recordOrNone(a), recordOrNone(b)))
		}
	}
	diff("hostname", was.Hostname, now.Hostname)
	diff("kernel", was.Kernel, now.Kernel)
	diff("cpu_model", was.CPUModel, now.CPUModel)
	diff("cpus", fmt.Sprint(was.CPUs), fmt.Sprint(now.CPUs))
	diff("usable_cpus", fmt.Sprint(was.UsableCPUs), fmt.Sprint(now.UsableCPUs))
	diff("cpu_governor", was.CPUGovernor, now.CPUGovernor)
	names := map[string]bool{}
	for k := range was.Sysctls {
		names[k] = true
	}
	for k := range now.Sysctls {
		names[k] = true
	}
	var sorted []string
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		diff(k, was.Sysctls[k], now.Sysctls[k])
	}
	diff("netscript", buildName(was), buildName(now))
	diff("go", was.Go, now.Go)
	return out
}

// buildName names a build as a comparison shows it: version, commit, and
// "cgo" for a cgo build, whose round trips cost more (sysinfo.Info.Cgo).
func buildName(i sysinfo.Info) string {
	s := i.Netscript + " " + i.Commit
	if i.Cgo {
		s += " cgo"
	}
	return s
}

func recordOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
