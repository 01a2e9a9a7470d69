package cpu

import (
	"math"
	"strings"
	"testing"
	"time"
)

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// TestDemandNetperfHandChecks reproduces the two hand checks of the netperf
// notes (§2.2): TCP_RR at 87456.11 tr/s with 60.94 % of 2 CPUs is 13.936
// µs/Tr (netperf printed 13.935 from its unrounded utilisation), and
// TCP_STREAM at 13911.04 10^6 bits/s with 67.00 % of 2 CPUs is 0.789 µs/KB.
func TestDemandNetperfHandChecks(t *testing.T) {
	rr, err := DemandPerTransaction(60.94, 2, 87456.11)
	if err != nil {
		t.Fatal(err)
	}
	if got := round3(rr); got != 13.936 {
		t.Errorf("DemandPerTransaction = %v (%.3f), want 13.936", rr, got)
	}
	bytesPerSec := 13911.04e6 / 8 // 1 698 125 KB/s
	if kb := bytesPerSec / 1024; math.Abs(kb-1698125) > 0.5 {
		t.Fatalf("test arithmetic: %v KB/s, want 1698125", kb)
	}
	st, err := DemandPerKB(67.00, 2, bytesPerSec)
	if err != nil {
		t.Fatal(err)
	}
	if got := round3(st); got != 0.789 {
		t.Errorf("DemandPerKB = %v (%.3f), want 0.789", st, got)
	}
}

func TestDemandErrors(t *testing.T) {
	tests := []struct {
		name    string
		f       func() (float64, error)
		wantErr string
	}{
		{"zero rate", func() (float64, error) { return DemandPerTransaction(50, 2, 0) }, "not a positive number"},
		{"negative rate", func() (float64, error) { return DemandPerKB(50, 2, -1) }, "not a positive number"},
		{"NaN rate", func() (float64, error) { return DemandPerKB(50, 2, math.NaN()) }, "not a positive number"},
		{"Inf rate", func() (float64, error) { return DemandPerTransaction(50, 2, math.Inf(1)) }, "not a positive number"},
		{"tiny rate overflows", func() (float64, error) { return DemandPerTransaction(100, 2, 5e-324) }, "overflows"},
		{"util over 100", func() (float64, error) { return DemandPerTransaction(150, 2, 10) }, "outside [0, 100]"},
		{"negative util", func() (float64, error) { return DemandPerKB(-1, 2, 10) }, "outside [0, 100]"},
		{"NaN util", func() (float64, error) { return DemandPerKB(math.NaN(), 2, 10) }, "outside [0, 100]"},
		{"zero CPUs", func() (float64, error) { return DemandPerTransaction(50, 0, 10) }, "CPU count 0"},
		{"no transactions", func() (float64, error) { return CPUTimePerTransaction(time.Second, 0) }, "no work"},
		{"no bytes", func() (float64, error) { return CPUTimePerKB(time.Second, 0) }, "no work"},
		{"negative CPU time", func() (float64, error) { return CPUTimePerKB(-time.Second, 10) }, "negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.f()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "cpu: ") {
				t.Fatalf("= %v, %v; want an error containing %q", v, err, tc.wantErr)
			}
		})
	}
}

func TestCPUTimeDemand(t *testing.T) {
	tests := []struct {
		name string
		f    func() (float64, error)
		want float64
	}{
		// 1.5 s of CPU over 100 000 transactions = 15 µs each.
		{"per transaction", func() (float64, error) { return CPUTimePerTransaction(1500*time.Millisecond, 100000) }, 15},
		// 2 s of CPU over 1 GiB = 2e6 µs / 1 048 576 KB.
		{"per KB", func() (float64, error) { return CPUTimePerKB(2*time.Second, 1<<30) }, 2e6 / 1048576},
		// The utilisation form and the time form agree: 60.94 % of 2 CPUs
		// for 2 s is 2.4376 s of CPU; over 174912.22 transactions that is
		// the same 13.936 µs/Tr.
		{"agrees with utilisation form", func() (float64, error) {
			return CPUTimePerTransaction(time.Duration(0.6094*2*2*float64(time.Second)), 174912)
		}, 0.6094 * 2 * 2 * 1e6 / 174912},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.f()
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tc.want) > 1e-6 {
				t.Fatalf("= %v, want %v", got, tc.want)
			}
		})
	}
}
