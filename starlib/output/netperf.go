package output

import (
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/starlib/values"
)

// netperfFields maps netperf's omni output selectors (netperf -o, -k) that
// a result can fill to the field holding the same figure, so csv() and
// kv() take a netperf user's selector lists as they are. The values are
// netscript's: latency from the histogram with one decimal (netperf prints
// whole microseconds), stddev the sample one (netperf's is the
// population's), send and receive calls of streams only.
var netperfFields = map[string]string{
	"RESULT_BRAND":       "brand",
	"THROUGHPUT":         "throughput",
	"THROUGHPUT_UNITS":   "units",
	"ELAPSED_TIME":       "elapsed",
	"MIN_LATENCY":        "latency.min",
	"MAX_LATENCY":        "latency.max",
	"P50_LATENCY":        "latency.p50",
	"P90_LATENCY":        "latency.p90",
	"P99_LATENCY":        "latency.p99",
	"MEAN_LATENCY":       "latency.mean",
	"STDDEV_LATENCY":     "latency.stddev",
	"REQUEST_SIZE":       "config.request",
	"RESPONSE_SIZE":      "config.response",
	"BURST_SIZE":         "config.burst",
	"LSS_SIZE_REQ":       "config.send_buffer_request",
	"LSS_SIZE":           "config.local_send_buffer",
	"LSS_SIZE_END":       "config.local_send_buffer_end",
	"LSR_SIZE_REQ":       "config.recv_buffer_request",
	"LSR_SIZE":           "config.local_recv_buffer",
	"LSR_SIZE_END":       "config.local_recv_buffer_end",
	"RSS_SIZE_REQ":       "config.remote_send_buffer_request",
	"RSS_SIZE":           "config.remote_send_buffer",
	"RSS_SIZE_END":       "config.remote_send_buffer_end",
	"RSR_SIZE_REQ":       "config.remote_recv_buffer_request",
	"RSR_SIZE":           "config.remote_recv_buffer",
	"RSR_SIZE_END":       "config.remote_recv_buffer_end",
	"LOCAL_CPU_UTIL":     "local_cpu",
	"REMOTE_CPU_UTIL":    "remote_cpu",
	"LOCAL_SD":           "local_sd",
	"REMOTE_SD":          "remote_sd",
	"SD_UNITS":           "sd_units",
	"LOCAL_CPU_COUNT":    "local_cpu_count",
	"REMOTE_CPU_COUNT":   "remote_cpu_count",
	"LOCAL_CPU_BIND":     "config.cpu",
	"REMOTE_CPU_BIND":    "config.remote_cpu",
	"LOCAL_BYTES_SENT":   "bytes_sent",
	"LOCAL_BYTES_RECVD":  "bytes_received",
	"REMOTE_BYTES_SENT":  "remote.bytes_sent",
	"REMOTE_BYTES_RECVD": "remote.bytes_received",
	"LOCAL_SEND_CALLS":   "send_calls",
	"LOCAL_RECV_CALLS":   "recv_calls",
	"REMOTE_SEND_CALLS":  "remote.send_calls",
	"REMOTE_RECV_CALLS":  "remote.recv_calls",
	"LOCAL_NODELAY":      "config.nodelay",
	"REMOTE_NODELAY":     "config.nodelay",
	"SOURCE_ADDR":        "local_address",
	"SOURCE_PORT":        "config.local_port",
	"DEST_ADDR":          "remote_address",
	"DEST_PORT":          "config.data_port",
}

// netperfComputed are the selectors whose figure no single field holds.
var netperfComputed = map[string]func(row starlark.Value) starlark.Value{
	// Transactions per second, for tests that count them (netperf's
	// TRANSACTION_RATE); None for streams.
	"TRANSACTION_RATE": func(row starlark.Value) starlark.Value {
		if !transactionRow(row) {
			return starlark.None
		}
		v, _ := outLookup(row, "throughput")
		return v
	},
	// The mean round trip derived from the rate, times 1 + burst, as
	// netperf's RT_LATENCY (not from the histogram).
	"RT_LATENCY": func(row starlark.Value) starlark.Value {
		if !transactionRow(row) {
			return starlark.None
		}
		t, _ := outLookup(row, "throughput")
		rate, ok := values.Number(t)
		if !ok || rate <= 0 {
			return starlark.None
		}
		burst := 0.0
		if b, err := outLookup(row, "config.burst"); err == nil {
			burst, _ = values.Number(b)
		}
		return starlark.Float(1e6 / rate * (1 + burst))
	},
}

// transactionRow reports whether row's throughput is transactions per
// second.
func transactionRow(row starlark.Value) bool {
	u, err := outLookup(row, "units")
	s, _ := starlark.AsString(u)
	return err == nil && s == result.UnitsTrans
}

// NetperfSelectors lists the netperf selector names csv() and kv() accept.
func NetperfSelectors() []string {
	var out []string
	for k := range netperfFields {
		out = append(out, k)
	}
	for k := range netperfComputed {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// netperfName returns the netperf selector name is (in any case), if it
// is one.
func netperfName(name string) (string, bool) {
	up := strings.ToUpper(name)
	_, field := netperfFields[up]
	_, computed := netperfComputed[up]
	return up, field || computed
}

// columns resolves the fields of csv() and kv(): the path (or computed
// selector) each column reads and the name it is printed under. A name
// that is a field of the rows stays netscript's; one that is not but is a
// netperf selector (any case) reads that selector's figure and prints as
// netperf names it (p99_latency is P99_LATENCY). A list made only of
// netperf selectors prints every one as netperf does, even one that is a
// field too (throughput).
func columns(rows []starlark.Value, fields []string) (paths, names []string) {
	isField := func(f string) bool {
		if len(rows) == 0 {
			return f == strings.ToLower(f)
		}
		_, err := values.Field(rows[0], f)
		return err == nil
	}
	allNetperf, anyNetperfOnly := true, false
	for _, f := range fields {
		_, np := netperfName(f)
		allNetperf = allNetperf && np
		anyNetperfOnly = anyNetperfOnly || np && !isField(f)
	}
	for _, f := range fields {
		up, np := netperfName(f)
		if !np || isField(f) && !(allNetperf && anyNetperfOnly) {
			paths, names = append(paths, f), append(names, f)
			continue
		}
		path := up
		if p, ok := netperfFields[up]; ok {
			path = p
		}
		paths, names = append(paths, path), append(names, up)
	}
	return paths, names
}

// columnValue is the value of column path (a field path or a computed
// netperf selector) in row.
func columnValue(row starlark.Value, path string) (starlark.Value, error) {
	if fn, ok := netperfComputed[path]; ok {
		return fn(row), nil
	}
	return outLookup(row, path)
}
