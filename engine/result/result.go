// Package result holds what a test measured, in the shape scripts and
// records see it. Field names (the json tags) are the names Starlark
// scripts use, so they are part of netscript's contract.
package result

import (
	"netscript/engine/hist"
)

// Units of throughput, spelled as netperf spells them.
const (
	UnitsTrans = "Trans/s"
	UnitsBits  = "10^6bits/s"
)

// Result is one test's outcome.
type Result struct {
	Test          string            `json:"test"`
	Brand         string            `json:"brand"`
	Throughput    float64           `json:"throughput"`
	Units         string            `json:"units"`
	Elapsed       float64           `json:"elapsed"` // seconds measured
	Transactions  uint64            `json:"transactions"`
	Discarded     uint64            `json:"discarded"` // in flight at the deadline: sent, not counted
	BytesSent     uint64            `json:"bytes_sent"`
	BytesReceived uint64            `json:"bytes_received"`
	Latency       *Latency          `json:"latency"` // RR tests; nil for streams
	Errors        map[string]uint64 `json:"errors"`
	Config        Config            `json:"config"`
	LocalAddress  string            `json:"local_address"`
	RemoteAddress string            `json:"remote_address"`
	Remote        *Remote           `json:"remote"` // the server's own counts; nil without a control connection

	// Hist is the full latency histogram behind Latency, kept so results
	// can be merged exactly; it is not a script-visible field.
	Hist *hist.Histogram `json:"-"`
}

// Latency is the distribution of transaction times, in microseconds.
type Latency struct {
	Count  uint64  `json:"count"`
	Min    float64 `json:"min"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
}

// LatencyOf summarises a histogram.
func LatencyOf(h *hist.Histogram) *Latency {
	s := h.Summary()
	return &Latency{Count: s.Count, Min: s.Min, Mean: s.Mean, Stddev: s.Stddev,
		P50: s.P50, P90: s.P90, P99: s.P99, P999: s.P999, Max: s.Max}
}

// Config is the options in force for the test, including what the kernel
// actually granted.
type Config struct {
	Host             string  `json:"host"` // "" for the embedded server
	Port             int     `json:"port"`
	DataPort         int     `json:"data_port"`
	Family           string  `json:"family"`
	Duration         float64 `json:"duration"` // seconds asked for; 0 with a count
	Transactions     uint64  `json:"transactions"`
	Request          int     `json:"request"`
	Response         int     `json:"response"`
	Burst            int     `json:"burst"`
	NoDelay          bool    `json:"nodelay"`
	Local            string  `json:"local"`
	LocalPort        int     `json:"local_port"`
	Timeout          float64 `json:"timeout"` // UDP_RR loss timeout, seconds
	LocalSendBuffer  int     `json:"local_send_buffer"`
	LocalRecvBuffer  int     `json:"local_recv_buffer"`
	RemoteSendBuffer int     `json:"remote_send_buffer"`
	RemoteRecvBuffer int     `json:"remote_recv_buffer"`
	ServerVersion    string  `json:"server_version"`
}

// Remote is what the server counted on its side of the test.
type Remote struct {
	Transactions  uint64            `json:"transactions"`
	BytesSent     uint64            `json:"bytes_sent"`
	BytesReceived uint64            `json:"bytes_received"`
	Accepts       uint64            `json:"accepts"`
	Elapsed       float64           `json:"elapsed"`
	Errors        map[string]uint64 `json:"errors"`
	Peers         []string          `json:"peers"` // distinct client addresses seen
}
