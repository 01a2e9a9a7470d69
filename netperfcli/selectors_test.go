package netperfcli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"netscript/engine/client/netservertest"
)

// listedSelectors are the selectors omni_output_list.txt (netperf's list
// of them, beside the reference binaries) describes.
func listedSelectors(t *testing.T) []string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(netservertest.Binary(t, "netperf")), "omni_output_list.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutPrefix(l, "Output Name: "); ok {
			names = append(names, strings.TrimSpace(n))
		}
	}
	if len(names) < 100 {
		t.Fatalf("omni_output_list.txt names %d selectors", len(names))
	}
	return names
}

// How a selector's value is compared with netperf's.
const (
	same     = iota // an identity, a size, a setting: equal
	volume          // a count or a rate: within the two runs' difference
	cpuShare        // a CPU figure: a share of the machine on both, or the same placeholder
	varies          // differs between any two runs: the same kind (placeholder or a value)
)

// kinds says how each selector is compared; one not named is compared
// as same.
var kinds = map[string]int{
	"ELAPSED_TIME": volume, "THROUGHPUT": volume, "LOCAL_SEND_THROUGHPUT": volume, "LOCAL_RECV_THROUGHPUT": volume,
	"REMOTE_SEND_THROUGHPUT": volume, "REMOTE_RECV_THROUGHPUT": volume, "TRANSACTION_RATE": volume, "RT_LATENCY": volume,
	"LOCAL_SEND_CALLS": volume, "LOCAL_RECV_CALLS": volume, "LOCAL_BYTES_PER_RECV": volume, "LOCAL_BYTES_PER_SEND": volume,
	"LOCAL_BYTES_SENT": volume, "LOCAL_BYTES_RECVD": volume, "LOCAL_BYTES_XFERD": volume,
	"REMOTE_SEND_CALLS": volume, "REMOTE_RECV_CALLS": volume, "REMOTE_BYTES_PER_RECV": volume, "REMOTE_BYTES_PER_SEND": volume,
	"REMOTE_BYTES_SENT": volume, "REMOTE_BYTES_RECVD": volume, "REMOTE_BYTES_XFERD": volume,
	"LOCAL_CPU_UTIL": cpuShare, "LOCAL_CPU_PERCENT_USER": cpuShare, "LOCAL_CPU_PERCENT_SYSTEM": cpuShare,
	"LOCAL_CPU_PERCENT_IOWAIT": cpuShare, "LOCAL_CPU_PERCENT_IRQ": cpuShare, "LOCAL_CPU_PERCENT_SWINTR": cpuShare,
	"LOCAL_SD": cpuShare, "LOCAL_CPU_PEAK_UTIL": cpuShare,
	"REMOTE_CPU_UTIL": cpuShare, "REMOTE_CPU_PERCENT_USER": cpuShare, "REMOTE_CPU_PERCENT_SYSTEM": cpuShare,
	"REMOTE_CPU_PERCENT_IOWAIT": cpuShare, "REMOTE_CPU_PERCENT_IRQ": cpuShare, "REMOTE_CPU_PERCENT_SWINTR": cpuShare,
	"REMOTE_SD": cpuShare, "REMOTE_CPU_PEAK_UTIL": cpuShare,
	"LSS_SIZE_END": varies, "LSR_SIZE_END": varies, "RSS_SIZE_END": varies, "RSR_SIZE_END": varies,
	"LOCAL_CPU_PEAK_ID": varies, "REMOTE_CPU_PEAK_ID": varies, "COMMAND_LINE": varies,
	"LOCAL_TRANSPORT_RETRANS": varies, "REMOTE_TRANSPORT_RETRANS": varies,
}

// TestEverySelector runs one TCP_STREAM, one TCP_RR and one UDP_RR with
// both netperfs against one netserver, selecting every selector of
// omni_output_list.txt, and compares each value with netperf's: an
// identity or setting equal, a count or rate within the runs' difference
// (their throughputs' ratio, and a factor of four for a loaded machine),
// a CPU figure a share of the machine, a placeholder the same.
func TestEverySelector(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	sel := strings.Join(listedSelectors(t), ",")
	for _, test := range []string{"TCP_STREAM", "TCP_RR", "UDP_RR"} {
		t.Run(test, func(t *testing.T) {
			args := []string{"-H", "127.0.0.1", "-p", strconv.Itoa(port), "-t", test, "-l", "1", "-c", "-C", "-B", "tag", "--", "-k", sel}
			ref := make(chan runs, 1)
			go func() { ref <- reference(t, args) }()
			got, want := ours(t, args), <-ref
			if got.status != 0 || want.status != 0 {
				t.Fatalf("status %d (netperf's %d): %s %s", got.status, want.status, got.err, want.err)
			}
			w, g := keyvals(want.out), keyvals(got.out)
			ratio := numOf(g["THROUGHPUT"]) / numOf(w["THROUGHPUT"])
			if !(ratio > 0) {
				t.Fatalf("throughput %s, netperf's %s", g["THROUGHPUT"], w["THROUGHPUT"])
			}
			for _, name := range listedSelectors(t) {
				a, ok := w[name]
				if !ok {
					t.Errorf("netperf printed no %s", name)
					continue
				}
				b, ok := g[name]
				if !ok {
					t.Errorf("%s: no value (netperf's %s)", name, a)
					continue
				}
				if msg := compareValue(kinds[name], a, b, ratio); msg != "" {
					t.Errorf("%s = %s, netperf's %s: %s", name, b, a, msg)
				}
			}
		})
	}
}

func keyvals(out string) map[string]string {
	m := map[string]string{}
	for _, l := range lines(out) {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

func numOf(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// compareValue compares one value with netperf's (see TestEverySelector).
func compareValue(kind int, a, b string, ratio float64) string {
	if a == b {
		return ""
	}
	x, y := numOf(a), numOf(b)
	placeholder := func(v float64) bool { return v < 0 || math.IsNaN(v) }
	switch kind {
	case same:
		return "not the same"
	case varies:
		if placeholder(x) != placeholder(y) {
			return "a placeholder against a value"
		}
	case cpuShare:
		if placeholder(x) != placeholder(y) {
			return "a placeholder against a value"
		}
	case volume:
		switch {
		case placeholder(x) || placeholder(y):
			return "a placeholder against a value"
		case (x == 0) != (y == 0):
			return "zero against a count"
		case x > 0:
			slack := math.Abs(math.Log(ratio)) + math.Log(4)
			if math.Abs(math.Log(y/x)) > slack {
				return "beyond the runs' difference"
			}
		}
	}
	return ""
}
