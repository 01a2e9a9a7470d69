package server

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"netscript/engine/limits"
)

// TestNetperfSendfile: the reference netperf's TCP_SENDFILE, which asks
// with the classic DO_TCP_STREAM, runs against a daemon's netperf
// listener: the server receives as TCP_STREAM's does, and what netperf
// prints of its counts (-v 2: its receive calls and bytes per receive,
// TCP_STREAM_RESULTS' double among them; -C: its CPU) is what it counted.
func TestNetperfSendfile(t *testing.T) {
	peers := peersDir(t)
	for _, c := range []struct {
		name  string
		args  []string
		bytes uint64 // sent by a count (-l -N); 0: timed
	}{
		{"bytes", []string{"-t", "TCP_SENDFILE", "-l", "-10000000", "-v", "2"}, 10000000},
		{"timed_cpu_sizes", []string{"-t", "TCP_SENDFILE", "-l", "1", "-v", "2", "-c", "-C", "--", "-m", "8192", "-M", "32768"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newNPHarness(t, limits.Default(), false)
			out := runNetperf(t, peers, append(hostPort(h.addr4), c.args...)...)
			reps := h.reports()
			if len(reps) != 1 || reps[0].Test != "TCP_SENDFILE" {
				t.Fatalf("the server reported %v\nnetperf:\n%s", reps, out)
			}
			rep := reps[0]
			if c.bytes > 0 && (rep.BytesReceived < c.bytes || rep.BytesReceived >= c.bytes+16384) {
				t.Errorf("the server received %d bytes; netperf sent %d in sends of 16384", rep.BytesReceived, c.bytes)
			}
			// The -v 2 block's row: alignments, offsets, bytes sent, bytes
			// per send, sends, bytes per receive (the server's), receives.
			var row []string
			lines := strings.Split(out, "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "Send   Recv    Send   Recv") && i+1 < len(lines) {
					row = strings.Fields(lines[i+1])
				}
			}
			if len(row) != 9 {
				t.Fatalf("no -v 2 row in netperf's output:\n%s", out)
			}
			perRecv, err1 := strconv.ParseFloat(row[7], 64)
			recvs, err2 := strconv.ParseFloat(row[8], 64)
			if err1 != nil || err2 != nil || recvs == 0 {
				t.Fatalf("-v 2 row %q", row)
			}
			if d := math.Abs(perRecv*recvs - float64(rep.BytesReceived)); d > recvs*0.01 {
				t.Errorf("netperf read %s bytes per receive over %s receives of the server's; it counted %d bytes", row[7], row[8], rep.BytesReceived)
			}
			if c.bytes == 0 {
				// The table's row: sockets, send size, elapsed, throughput,
				// CPU local and remote, service demands.
				var table []string
				for _, l := range lines {
					if f := strings.Fields(l); len(f) == 9 && isNumber(f[0]) && table == nil {
						table = f
					}
				}
				if table == nil || table[2] != "8192" {
					t.Fatalf("no result row with sends of 8192 in netperf's output:\n%s", out)
				}
				got, err := strconv.ParseFloat(table[6], 64)
				if err != nil || math.Abs(got-rep.CPUUtil) > 0.006 {
					t.Errorf("netperf's remote CPU column %q, the server measured %.3f%%", table[6], rep.CPUUtil)
				}
			}
		})
	}
}

// isNumber reports whether s reads as a number.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
