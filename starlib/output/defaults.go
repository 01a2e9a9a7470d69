package output

import (
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/starlib/values"
)

// Default field sets of table(), csv() and kv() when no fields are given,
// by the traits of the test, as netperf picks its default output selectors
// by test: a workload gets the sizes it takes (spec.Workload), so a new
// workload gets a fitting layout without a line here. A name a result does
// not have is left out.
var (
	// streamTable: bulk tests, netperf's receive socket, send socket and
	// message sizes, then UDP_STREAM's loss.
	streamTable = []string{"test", "config.remote_recv_buffer", "config.local_send_buffer", "config.send_size", "elapsed", "throughput", "udp.loss_pct", "tcp.retransmits"}
	// mixedTable: results of several kinds in one table.
	mixedTable = []string{"test", "elapsed", "throughput", "units"}

	// streamRecord: csv() and kv() have no width limit and add counts.
	streamRecord = []string{"test", "brand", "config.remote_recv_buffer", "config.local_send_buffer", "config.send_size", "config.recv_size",
		"elapsed", "throughput", "units", "bytes_sent", "bytes_received", "udp.sent", "udp.received", "udp.lost", "udp.loss_pct",
		"tcp.retransmits"}

	// cpuFields join the defaults when a test measured CPU (cpu_util=True),
	// as netperf's -c -C add them.
	cpuFields = []string{"local_cpu", "remote_cpu", "local_sd", "remote_sd"}
	// scheduleTable and scheduleRecord join the defaults when a test ran
	// the open model (arrival_rate): the rate asked for and how the client
	// kept to it.
	scheduleTable  = []string{"config.arrival_rate", "schedule.late", "schedule.on_time"}
	scheduleRecord = []string{"config.arrival_rate", "config.arrival", "schedule.scheduled", "schedule.sent", "schedule.late",
		"schedule.on_time", "schedule.max_behind"}
	mixedRecord = []string{"test", "brand", "elapsed", "throughput", "units", "transactions"}
)

// transactionFields are the default fields of a test that counts
// transactions: its sizes (request and response, if its transactions carry
// them; burst, if it takes one), then the time, the rate and the latency
// (table: the median and p99; record: the units, count and distribution).
func transactionFields(w *spec.Workload, record bool) []string {
	fields := []string{"test"}
	if record {
		fields = append(fields, "brand")
	}
	if w.Messages {
		fields = append(fields, "config.request", "config.response")
	}
	if w.Accepts(spec.OptBurst) {
		fields = append(fields, "config.burst")
	}
	if !record {
		return append(fields, "elapsed", "throughput", "latency.p50", "latency.p99")
	}
	return append(fields, "elapsed", "throughput", "units", "transactions",
		"latency.mean", "latency.p50", "latency.p90", "latency.p99", "latency.max", "censored.oldest")
}

// kindDefaults returns the default fields of rows' kind of test (table's
// or csv()'s and kv()'s): those of their workload, the same for every row
// (TCP_RR and UDP_RR share theirs), else the mixed set; and false for
// values that are not test results.
func kindDefaults(rows []starlark.Value, record bool) ([]string, bool) {
	var fields []string
	for i, r := range rows {
		v, err := values.Field(r, "test")
		if err != nil {
			return nil, false
		}
		name, _ := starlark.AsString(v)
		w, err := spec.LookupWorkload(name)
		if err != nil || w.Netperf != name {
			return nil, false
		}
		var f []string
		switch {
		case w.Bulk && record:
			f = streamRecord
		case w.Bulk:
			f = streamTable
		default:
			f = transactionFields(w, record)
		}
		if i > 0 && !slices.Equal(f, fields) {
			if record {
				return mixedRecord, true
			}
			return mixedTable, true
		}
		fields = f
	}
	return fields, true
}

// TableDefaults picks table()'s columns: the set for the kind of test,
// with brand first and errors last when any row has them.
func TableDefaults(rows []starlark.Value) []string {
	kind, ok := kindDefaults(rows, false)
	if !ok {
		return scalarFields(rows)
	}
	fields := presentFields(rows, kind)
	if anyMeasured(rows, "local_cpu") {
		fields = append(fields, cpuFields...)
	}
	if anyMeasured(rows, "schedule") {
		fields = append(fields, scheduleTable...)
	}
	fields = withFlows(rows, fields)
	if anyNonEmpty(rows, "brand") {
		// The brand labels the row; a block that does not fit repeats it.
		fields = append([]string{"brand"}, fields...)
	}
	if anyNonEmpty(rows, "errors") {
		fields = append(fields, "errors")
	}
	return fields
}

// RecordDefaults picks csv()'s and kv()'s fields: the set for the kind of
// test with units, counts and the latency distribution, then CPU figures,
// flows and errors when any row has them.
func RecordDefaults(rows []starlark.Value) []string {
	kind, ok := kindDefaults(rows, true)
	if !ok {
		return scalarFields(rows)
	}
	fields := presentFields(rows, kind)
	if anyMeasured(rows, "local_cpu") {
		fields = append(fields, append(cpuFields, "sd_units")...)
	}
	if anyMeasured(rows, "schedule") {
		fields = append(fields, scheduleRecord...)
	}
	if hasFlows(rows) {
		fields = append(withFlows(rows, fields), "start_skew")
	}
	if anyNonEmpty(rows, "errors") {
		fields = append(fields, "errors")
	}
	return fields
}

// anyMeasured reports whether some row has field and it is not None.
func anyMeasured(rows []starlark.Value, field string) bool {
	for _, r := range rows {
		if v, err := values.Field(r, field); err == nil && v != starlark.None {
			return true
		}
	}
	return false
}

// hasFlows reports whether some row is a test of several flows.
func hasFlows(rows []starlark.Value) bool {
	for _, r := range rows {
		if v, err := values.Field(r, "config.flows"); err == nil {
			if n, ok := values.Number(v); ok && n > 1 {
				return true
			}
		}
	}
	return false
}

// withFlows puts config.flows after test when some row has several flows:
// its throughput is then the sum over that many connections.
func withFlows(rows []starlark.Value, fields []string) []string {
	if !hasFlows(rows) || len(fields) == 0 || fields[0] != "test" {
		return fields
	}
	return append([]string{"test", "config.flows"}, fields[1:]...)
}

// presentFields keeps the fields the first row has.
func presentFields(rows []starlark.Value, fields []string) []string {
	var out []string
	for _, f := range fields {
		if len(rows) == 0 {
			out = append(out, f)
		} else if _, err := values.Field(rows[0], f); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// anyNonEmpty reports whether some row has field set to a non-empty
// string or a non-empty dict.
func anyNonEmpty(rows []starlark.Value, field string) bool {
	for _, r := range rows {
		v, err := values.Field(r, field)
		if err != nil {
			continue
		}
		switch x := v.(type) {
		case starlark.String:
			if x != "" {
				return true
			}
		case *starlark.Dict:
			if x.Len() > 0 {
				return true
			}
		}
	}
	return false
}

// scalarFields lists the top-level numbers, strings and booleans of the
// first row, for values that are not test results (confidence() and the
// like).
func scalarFields(rows []starlark.Value) []string {
	if len(rows) == 0 {
		return nil
	}
	var out []string
	for _, n := range values.FieldNames(rows[0]) {
		v, err := values.Attr(rows[0], n)
		if err != nil || v == nil {
			continue
		}
		switch v.(type) {
		case starlark.Int, starlark.Float, starlark.String, starlark.Bool, starlark.NoneType:
			out = append(out, n)
		}
	}
	return out
}

// tableHeaders of the fields netperf users know, in three lines: what, more of
// what, units.
var tableHeaders = map[string][3]string{
	"test":                      {"Test"},
	"brand":                     {"Brand"},
	"units":                     {"Units"},
	"elapsed":                   {"Elapsed", "Time", "secs."},
	"transactions":              {"Trans.", "Count", "#"},
	"discarded":                 {"Dis-", "carded", "#"},
	"censored.oldest":           {"Censored", "oldest", "usec"},
	"bytes_sent":                {"Bytes", "Sent", "bytes"},
	"bytes_received":            {"Bytes", "Recvd", "bytes"},
	"errors":                    {"Errors"},
	"local_address":             {"Local", "Address"},
	"remote_address":            {"Remote", "Address"},
	"config.request":            {"Request", "Size", "bytes"},
	"config.response":           {"Resp.", "Size", "bytes"},
	"config.burst":              {"Burst"},
	"config.send_size":          {"Send", "Size", "bytes"},
	"config.recv_size":          {"Recv", "Size", "bytes"},
	"config.local":              {"Local", "Address"},
	"config.local_send_buffer":  {"Local", "Send", "bytes"},
	"config.local_recv_buffer":  {"Local", "Recv", "bytes"},
	"config.remote_send_buffer": {"Remote", "Send", "bytes"},
	"config.remote_recv_buffer": {"Remote", "Recv", "bytes"},
	"remote.transactions":       {"Remote", "Trans.", "#"},
	"remote.accepts":            {"Remote", "Accepts", "#"},
	"remote.elapsed":            {"Remote", "Time", "secs."},
	"udp.sent":                  {"Sent", "Okay", "#"},
	"udp.received":              {"Recvd", "Okay", "#"},
	"udp.lost":                  {"Lost", "", "#"},
	"udp.loss_pct":              {"Lost", "", "%"},
	"local_cpu":                 {"CPU", "local", "%"},
	"remote_cpu":                {"CPU", "remote", "%"},
	"fastopen.attempted":        {"TFO", "Tried", "#"},
	"fastopen.accepted":         {"TFO", "Accepted", "#"},
	"config.flows":              {"Flows"},
	"start_skew":                {"Start", "skew", "secs."},
	"index":                     {"Flow"},
	"local_port":                {"Local", "Port"},
	"first":                     {"First", "done", "secs."},
	"tcp.retransmits":           {"Retr", "", "#"},
	"config.arrival_rate":       {"Arrival", "Rate", "per sec"},
	"schedule.late":             {"Late", "Starts", "#"},
	"schedule.on_time":          {"On", "Time", "share"},

	// ReplayTable's columns.
	"n":                    {"#"},
	"recorded.rate":        {"Recorded", "Through-", "put"},
	"replayed.rate":        {"Now", "Through-", "put"},
	"change":               {"Change", "", "%"},
	"recorded.latency.p99": {"Recorded", "p99", "usec"},
	"replayed.latency.p99": {"Now", "p99", "usec"},
}

// tableHeader returns the header lines of field: a known field's netperf
// style header, "Latency" over the statistic in usec for latency fields,
// the units of the rows for throughput, and the name itself otherwise.
func tableHeader(field string, rows []starlark.Value) [3]string {
	if h, ok := tableHeaders[field]; ok {
		return h
	}
	if stat, ok := strings.CutPrefix(field, "latency."); ok {
		if stat == "count" {
			return [3]string{"Latency", "count", "#"}
		}
		return [3]string{"Latency", stat, "usec"}
	}
	if field == "local_sd" || field == "remote_sd" {
		side := strings.TrimSuffix(field, "_sd")
		switch unitsOfRows(rows, "sd_units") {
		case "usec/Tran":
			return [3]string{"S.dem", side, "us/Tr"}
		case "usec/KB":
			return [3]string{"S.dem", side, "us/KB"}
		}
		return [3]string{"S.dem", side}
	}
	if field == "throughput" {
		units := unitsOfRows(rows, "units")
		switch units {
		case result.UnitsTrans:
			return [3]string{"Trans.", "Rate", "per sec"}
		case result.UnitsBits:
			return [3]string{"Through-", "put", units}
		}
		return [3]string{"Through-", "put", units}
	}
	return [3]string{field}
}

// unitsOfRows returns the string field every row has the same value of,
// or "" when they differ.
func unitsOfRows(rows []starlark.Value, field string) string {
	units := ""
	for i, r := range rows {
		v, err := values.Field(r, field)
		s, _ := starlark.AsString(v)
		if err != nil || (i > 0 && s != units) {
			return ""
		}
		units = s
	}
	return units
}
