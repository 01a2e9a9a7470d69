package output_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/output"
)

// TestOutputGolden formats fixed results with table(), csv() and kv(),
// with default and chosen fields, and compares with the golden files.
func TestOutputGolden(t *testing.T) {
	cases := []struct {
		file, code string
	}{
		// The default RR columns fit 80 characters, numbers right-aligned.
		{"table_rr.txt", `table(rr)`},
		// CRR has no burst column; a brand column appears when one is set.
		{"table_crr_brand.txt", `table(branded)`},
		// TCP_CC carries no data: no size columns.
		{"table_cc.txt", `table(cc)`},
		{"csv_cc.txt", `csv(cc)`},
		// Several kinds: the common columns, units, and errors when any.
		{"table_mixed.txt", `table(mixed)`},
		// Chosen fields, dotted, a dict field and one missing from a dict.
		{"table_fields.txt", `table(mixed, ["test", "remote.transactions", "errors", "errors.timeout", "latency.p999"])`},
		// What was not measured is "-": a field under None (no fastopen=),
		// a key a dict lacks.
		{"table_unmeasured.txt", `table(mixed, ["test", "fastopen.accepted", "errors.timeout"])`},
		// Fields as one comma-separated string, netperf selector style.
		{"table_string_fields.txt", `table(rr, "throughput, latency.mean")`},
		// Too wide for a mail: a second block that repeats the first column.
		{"table_wide.txt", `table(rr, ["test", "config.request", "config.response", "config.burst", "elapsed", "throughput", "transactions", "bytes_sent", "bytes_received", "latency.min", "latency.mean", "latency.p50", "latency.p99", "latency.max", "local_address"])`},
		// One result on its own is a table of one row.
		{"table_one.txt", `table(one)`},
		// A result as a plain dict (what a record holds) lays out the same.
		{"table_dict.txt", `table([r.to_dict() for r in rr])`},
		// Bulk tests: netperf's socket and message sizes, megabits, loss.
		{"table_streams.txt", `table(streams)`},
		{"csv_streams.txt", `csv(streams)`},
		// CPU figures join the defaults when measured (netperf -c -C).
		{"table_cpu.txt", `table(cpu)`},
		{"kv_cpu.txt", `kv(cpu)`},
		{"csv_rr.txt", `csv(rr)`},
		{"csv_fields.txt", `csv(branded, ["brand", "throughput", "latency.p99"])`},
		{"csv_mixed.txt", `csv(mixed)`},
		{"kv_rr.txt", `kv(one)`},
		{"kv_fields.txt", `kv(mixed[2], ["throughput", "units", "latency.p99", "errors", "errors.timeout", "config.nodelay"])`},
		// netperf's selector names, in any case, print as netperf's; a
		// list of only those names prints throughput as THROUGHPUT too.
		{"csv_netperf.txt", `csv(branded, "result_brand,throughput,p99_latency,MEAN_LATENCY,Transaction_Rate,rt_latency,elapsed_time")`},
		{"kv_netperf.txt", `kv(one, ["throughput", "p99_latency", "p50_latency", "stddev_latency", "request_size", "burst_size", "lss_size", "dest_addr", "result_brand"])`},
		// Mixed with netscript's own fields, each keeps its own name; a
		// stream has no transaction rate.
		{"csv_netperf_mixed.txt", `csv(mixed, ["test", "throughput", "p99_latency", "transaction_rate", "latency.p99"])`},
		// netperf's -P 0: no header, for shell loops.
		{"csv_no_header.txt", `csv(rr, ["brand", "throughput", "P99_LATENCY"], header=False)`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			th, _ := startest.NewThread(t)
			env := starlib.Predeclared()
			for k, v := range startest.FixedResults() {
				env[k] = v
			}
			v, err := starlark.EvalOptions(starlib.FileOptions(), th, "golden", c.code, env)
			if err != nil {
				t.Fatal(err)
			}
			s, ok := starlark.AsString(v)
			if !ok {
				t.Fatalf("%s returned %s, not text", c.code, v.Type())
			}
			if strings.HasPrefix(c.file, "table") {
				for _, line := range strings.Split(s, "\n") {
					if len(line) > output.MailWidth {
						t.Errorf("line longer than %d: %q", output.MailWidth, line)
					}
				}
			}
			startest.Golden(t, c.file, s+"\n")
		})
	}
}

// TestOutputErrors: every mistake names the builtin and what is wrong, and
// an unknown field lists the valid ones.
func TestOutputErrors(t *testing.T) {
	cases := []struct{ code, want string }{
		{`table(rr, ["thruput"])`, "table: unknown field thruput: a result has brand, bytes_received, bytes_sent, "},
		{`csv(rr, ["latency.p95"])`, "csv: unknown field latency.p95: latency has count, max, mean, min, p50, p90, p99, p999, stddev"},
		{`kv(one, ["latency"])`, "kv: field latency is a latency with fields count, max, mean, min, p50, p90, p99, p999, stddev; name one, such as latency.count"},
		{`kv(rr)`, "kv: takes one result, got a list of 3; use csv() for several"},
		{`kv(3)`, "kv: result must be a result (or a dict), got int"},
		{`table(3)`, "table: results must be a list of results, got int"},
		{`table([one, 3])`, "table: results[1] is a int, not a result"},
		{`table(rr, [1])`, "table: fields[0] must be a field name"},
		{`table(rr, 1)`, "table: fields must be a list of field names"},
		{`table(rr, [])`, "table: fields is empty"},
		{`csv(rr, "throughput,,units")`, "csv: fields has an empty name"},
		{`table()`, "table: missing argument for results"},
		{`env(1)`, "env: got 1 arguments"},
		{`csv(rr, ["p95_latency"])`, "csv: unknown field p95_latency: a result has brand"},
		{`csv(rr, header=1)`, `csv: for parameter "header": got int, want bool`},
	}
	for _, c := range cases {
		th, _ := startest.NewThread(t)
		env := starlib.Predeclared()
		for k, v := range startest.FixedResults() {
			env[k] = v
		}
		_, err := starlark.EvalOptions(starlib.FileOptions(), th, "bad", c.code, env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %s", c.code, err, c.want)
		}
	}
}

// TestOutputEmpty: no results give no text rather than an error, so a
// loop that ran zero times still prints.
func TestOutputEmpty(t *testing.T) {
	th, _ := startest.NewThread(t)
	for _, code := range []string{`table([])`, `csv([])`} {
		v, err := starlark.EvalOptions(starlib.FileOptions(), th, "empty", code, starlib.Predeclared())
		if err != nil || v != starlark.String("") {
			t.Errorf("%s = %v, %v", code, v, err)
		}
	}
	v, err := starlark.EvalOptions(starlib.FileOptions(), th, "empty", `csv([], ["test", "throughput"])`, starlib.Predeclared())
	if err != nil || v != starlark.String("test,throughput") {
		t.Errorf("csv with fields and no rows = %v, %v", v, err)
	}
}

// TestNetperfSelectorsMap: every netperf selector csv() and kv() take
// reads a field that results have (or a figure computed from them).
func TestNetperfSelectorsMap(t *testing.T) {
	th, _ := startest.NewThread(t)
	env := starlib.Predeclared()
	for k, v := range startest.FixedResults() {
		env[k] = v
	}
	env["selectors"] = starlark.String(strings.Join(output.NetperfSelectors(), ","))
	for _, rows := range []string{"rr", "streams", "cpu", "mixed"} {
		v, err := starlark.EvalOptions(starlib.FileOptions(), th, "sel", "csv("+rows+", selectors)", env)
		if err != nil {
			t.Errorf("%s: %v", rows, err)
			continue
		}
		head := strings.SplitN(string(v.(starlark.String)), "\n", 2)[0]
		if head != string(env["selectors"].(starlark.String)) {
			t.Errorf("%s: header %q", rows, head)
		}
	}
}
