package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/sock/socktest"
)

// netperfTable checks a classic request/response table with -P 0: the
// sizes line and the remote sizes line, the rate positive.
func netperfTable(t *testing.T, what, out string, req, rsp int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%s: %d lines, netperf's -P 0 prints 2:\n%s", what, len(lines), out)
	}
	f := strings.Fields(lines[0])
	if len(f) < 6 || f[2] != strconv.Itoa(req) || f[3] != strconv.Itoa(rsp) {
		t.Fatalf("%s: %q is not netperf's line for %d,%d", what, lines[0], req, rsp)
	}
	if rate, err := strconv.ParseFloat(f[5], 64); err != nil || !(rate > 0) {
		t.Errorf("%s: rate %q", what, f[5])
	}
}

// TestNetperfAsArgv0: the binary run under the name netperf is netperf,
// as a symbolic link and as a copy (whose embedded server is the copy run
// as serve).
func TestNetperfAsArgv0(t *testing.T) {
	link := filepath.Join(t.TempDir(), "netperf")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	netperfAs(t, link)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "netperf")
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	netperfAs(t, cp)
}

func netperfAs(t *testing.T, link string) {
	t.Helper()
	out, err := exec.Command(link, "-V").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "Netperf version 2.7.1\n") {
		t.Fatalf("netperf -V: %v %q", err, out)
	}
	out, err = exec.Command(link, "-t", "TCP_RR", "-l", "1", "-P", "0", "--", "-r", "32,64").Output()
	if err != nil {
		t.Fatalf("netperf -t TCP_RR: %v %s", err, out)
	}
	netperfTable(t, "netperf -t TCP_RR -P 0", string(out), 32, 64)
}

// TestNetperfSubcommand: refusals and --script through the binary, on the
// stream and with the status netperf 2.7.1 prints them (its printf is
// stdout).
func TestNetperfSubcommand(t *testing.T) {
	r := netscript(t, 30*time.Second, "netperf", "-t", "NO_SUCH_TEST")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "The test you requested (NO_SUCH_TEST) is unknown to this netperf.") || r.stderr != "" {
		t.Errorf("unknown test: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = netscript(t, 30*time.Second, "netperf", "-I", "120,1")
	if r.code != 255 || r.stdout != "Only 95% and 99% confidence level is supported\n" {
		t.Errorf("-I 120,1: %d %q", r.code, r.stdout)
	}
	r = netscript(t, 30*time.Second, "netperf", "--script", "-t", "TCP_RR", "-i", "30,3", "-I", "99,1", "--", "-k", "throughput")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "# netscript netperf -t TCP_RR -i 30,3 -I 99,1 -- -k throughput\n") ||
		!strings.Contains(r.stdout, "confidence(test, level = 99, width = 1, min = 3, max = 30)") {
		t.Errorf("--script: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestNetperfSeedLines runs command lines of the seeds' kind against a
// netscript daemon's --netperf-listen (-H with -p) and a standing endpoint (-N), their
// addresses replaced by loopback ones.
func TestNetperfSeedLines(t *testing.T) {
	standing, sink := socktest.Reserve(t, false), socktest.Reserve(t, true)
	np := socktest.Reserve(t, false)
	watchDaemon(t, exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--netperf-listen", fmt.Sprintf("127.0.0.1:%d", np),
		"--data", fmt.Sprintf("tcp_rr:127.0.0.1:%d,request=128,response=128", standing),
		"--data", fmt.Sprintf("udp_stream:127.0.0.1:%d", sink)), 2)
	port := strconv.Itoa(np) // -H speaks netserver's protocol: the daemon's --netperf-listen
	// netperf -H 192.168.1.100 -t UDP_RR -c -C -l 30 -P 0 -- -r 128,4096
	r := netscript(t, 60*time.Second, "netperf", "-H", "127.0.0.1", "-p", port, "-t", "UDP_RR", "-c", "-C", "-l", "1", "-P", "0", "--", "-r", "128,4096")
	if r.code != 0 {
		t.Fatalf("UDP_RR: %d %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || len(strings.Fields(lines[0])) != 10 {
		t.Errorf("UDP_RR -c -C -P 0: not netperf's CPU table:\n%s", r.stdout)
	}
	// netperf -H <destination> -t TCP_CRR -i 3,30 -- -F (one-second iterations, at most 3)
	r = netscript(t, 60*time.Second, "netperf", "-H", "127.0.0.1", "-p", port, "-t", "TCP_CRR", "-l", "1", "-i", "3,3", "-P", "0", "--", "-F")
	if r.code != 0 {
		t.Fatalf("TCP_CRR -F: %d %s", r.code, r.stderr)
	}
	netperfTable(t, "TCP_CRR -F", strings.Join(withoutWarning(r.stdout), "\n"), 1, 1)
	// netperf -H 192.168.1.100 -t TCP_RR -l 30 -N -P 0 -- -r 128 -P ,PORT
	r = netscript(t, 60*time.Second, "netperf", "-H", "127.0.0.1", "-t", "TCP_RR", "-l", "1", "-N", "-P", "0", "--", "-r", "128", "-P", ","+strconv.Itoa(standing))
	if r.code != 0 {
		t.Fatalf("-N: %d %s", r.code, r.stderr)
	}
	netperfTable(t, "-N", r.stdout, 128, 128)
	// With -N no receiver reports: UDP_STREAM's second line is netperf's zeros.
	r = netscript(t, 60*time.Second, "netperf", "-H", "127.0.0.1", "-t", "UDP_STREAM", "-l", "1", "-N", "-P", "0", "--", "-m", "1024", "-P", ","+strconv.Itoa(sink))
	lines = strings.Split(r.stdout, "\n")
	if r.code != 0 || len(lines) != 4 || !strings.HasSuffix(lines[1], " 0              0.00") || strings.Fields(lines[0])[1] != "1024" {
		t.Errorf("UDP_STREAM -N: %d %q %s", r.code, r.stdout, r.stderr)
	}
}

// withoutWarning drops the confidence warning block from out.
func withoutWarning(out string) []string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "!!!") && l != "" {
			keep = append(keep, l)
		}
	}
	return keep
}

// TestNetperfNoServer: a far end that does not answer is told in netperf's
// words (on stdout, as netperf's), with its status, and no banner.
func TestNetperfNoServer(t *testing.T) {
	port := strconv.Itoa(socktest.Reserve(t, false)) // held, not listening
	r := netscript(t, 30*time.Second, "netperf", "-H", "127.0.0.1", "-p", port, "-t", "TCP_RR", "-l", "1")
	want := "establish control: are you sure there is a netserver listening on 127.0.0.1 at port " + port + "?\n" +
		"establish_control could not establish the control connection from 0.0.0.0 port 0 address family AF_UNSPEC to 127.0.0.1 port " + port + " address family AF_INET\n"
	if r.code != 255 || r.stdout != want || r.stderr != "" {
		t.Errorf("got %d %q %q, want 255 and %q", r.code, r.stdout, r.stderr, want)
	}
}

// TestNetperfScriptRuns: the script --script prints, saved and run by
// netscript, measures the same kind of figures the command line prints.
func TestNetperfScriptRuns(t *testing.T) {
	line := []string{"-t", "TCP_CRR", "-l", "-300", "-B", "seed", "--", "-r", "32,64"}
	r := netscript(t, 30*time.Second, append([]string{"netperf", "--script"}, line...)...)
	if r.code != 0 {
		t.Fatalf("--script: %d %s", r.code, r.stderr)
	}
	file := filepath.Join(t.TempDir(), "netperf.star")
	if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	s := netscript(t, 60*time.Second, "--quiet", file)
	if s.code != 0 || !strings.Contains(s.stdout, "TCP_CRR") {
		t.Fatalf("the script: %d %q %s", s.code, s.stdout, s.stderr)
	}
	// Its table carries the command line's sizes and the transaction count's rate.
	if !regexp.MustCompile(`(?m)^seed +TCP_CRR +32 +64 +[0-9.]+ +[0-9.]+ `).MatchString(s.stdout) {
		t.Errorf("the script's table lacks the sizes:\n%s", s.stdout)
	}
	n := netscript(t, 60*time.Second, append([]string{"netperf", "-P", "0"}, line...)...)
	if n.code != 0 {
		t.Fatalf("the command line: %d %s", n.code, n.stderr)
	}
	netperfTable(t, "TCP_CRR -P 0", n.stdout, 32, 64)
}
