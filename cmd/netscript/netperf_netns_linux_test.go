package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/client/netservertest"
	"netscript/engine/netns"
)

// TestNetperfSeedsInNamespaces runs the seeds' netperf command lines with
// their addresses replaced by test namespaces' (192.168.1.100 becomes
// 198.18.0.2, the client 198.18.0.1) and their lengths cut to a second:
// `netscript serve --netperf-listen` answers on netperf's port 12865 in one namespace, with
// standing endpoints for the -N lines, and `netscript netperf` runs in the
// other. Each prints netperf's form.
func TestNetperfSeedsInNamespaces(t *testing.T) {
	cli, srv := netns.New(t, "np-cli"), netns.New(t, "np-srv")
	netns.Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
	serveIn(t, srv, "198.18.0.2:12866", "--netperf-listen", "198.18.0.2:12865",
		"--data", "tcp_crr:198.18.0.2:12345,request=128,response=4096",
		"--data", "udp_rr:198.18.0.2:12346,request=128,response=4096,from=198.18.0.0/24")
	for _, c := range []struct {
		line  string
		check func(out string) bool
	}{
		// 002: the controlled TCP_CRR and UDP_RR of runem/runem_udp.
		{"-H 198.18.0.2 -t TCP_CRR -c -C -l 1 -P 0 -- -r 128,4096 -P ,12347", cpuRR(128, 4096)},
		{"-H 198.18.0.2 -t UDP_RR -c -C -l 1 -P 0 -- -r 128,4096 -P ,12348", cpuRR(128, 4096)},
		// 002: the -N ones, from the client's address, at the standing endpoints.
		{"-H 198.18.0.2 -t TCP_CRR -c -C -l 1 -N -P 0 -- -r 128,4096 -P ,12345 -L 198.18.0.1", cpuRR(128, 4096)},
		{"-H 198.18.0.2 -t UDP_RR -c -C -l 1 -N -P 0 -- -r 128,4096 -P ,12346 -L 198.18.0.1", cpuRR(128, 4096)},
		// 000: TCP_CRR over Fast Open with confidence intervals (3 iterations).
		{"-H 198.18.0.2 -t TCP_CRR -l 1 -i 3,3 -- -F", func(out string) bool {
			return strings.HasPrefix(out, "MIGRATED TCP Connect/Request/Response TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.0.2 () port 0 AF_INET : +/-2.500% @ 99% conf.  : histogram") &&
				strings.Contains(out, "\nLocal /Remote\nSocket Size   Request  Resp.   Elapsed  Trans.\n")
		}},
		// 001: TCP_RR to 99 % +/- 0.5 % with keyval output (3 iterations).
		{"-H 198.18.0.2 -t TCP_RR -l 1 -i 3,3 -I 99,1 -- -k throughput,confidence_level,confidence_interval,confidence_iteration,throughput_confid", func(out string) bool {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			return len(lines) == 6 && strings.Contains(lines[0], " : +/-0.500% @ 99% conf. ") &&
				strings.HasPrefix(lines[1], "THROUGHPUT=") && lines[2] == "CONFIDENCE_LEVEL=99" &&
				lines[3] == "CONFIDENCE_INTERVAL=1.000000" && lines[4] == "CONFIDENCE_ITERATION=3" && strings.HasPrefix(lines[5], "THROUGHPUT_CONFID=")
		}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := cli.Command(ctx, bin, append([]string{"netperf"}, strings.Fields(c.line)...)...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := childproc.Run(cmd)
		cancel()
		if err != nil || !c.check(o.String()) {
			t.Errorf("netperf %s: %v\nstdout:\n%s\nstderr:\n%s", c.line, err, o.String(), e.String())
		}
	}
}

// TestNetperfSeedLoopInNamespaces runs the inside of 002's shell loop
// (`for i in ...; do netperf ... -N ... -L 192.168.1.$i & done`) three
// times at once, each from its own source address, at one standing
// endpoint; each prints netperf's two lines.
func TestNetperfSeedLoopInNamespaces(t *testing.T) {
	cli, srv := netns.New(t, "npl-cli"), netns.New(t, "npl-srv")
	veth := netns.Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
	for _, a := range []string{"198.18.0.11/24", "198.18.0.12/24"} {
		cli.AddAddr(t, veth.DevA, a)
	}
	serveIn(t, srv, "198.18.0.2:12865", "--data", "tcp_crr:198.18.0.2:12345,request=128,response=4096")
	type out struct {
		src      string
		err      error
		out, msg string
	}
	done := make(chan out)
	srcs := []string{"198.18.0.1", "198.18.0.11", "198.18.0.12"}
	for _, src := range srcs {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			line := "-H 198.18.0.2 -t TCP_CRR -c -C -l 1 -N -P 0 -- -r 128,4096 -P ,12345 -L " + src
			cmd := cli.Command(ctx, bin, append([]string{"netperf"}, strings.Fields(line)...)...)
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			err := childproc.Run(cmd)
			done <- out{src, err, o.String(), e.String()}
		}()
	}
	for range srcs {
		r := <-done
		if r.err != nil || !cpuRR(128, 4096)(r.out) {
			t.Errorf("-L %s: %v\nstdout:\n%s\nstderr:\n%s", r.src, r.err, r.out, r.msg)
		}
	}
}

// cpuRR checks netperf's -c -C -P 0 request/response lines.
func cpuRR(req, rsp int) func(string) bool {
	return func(out string) bool {
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != 2 {
			return false
		}
		f := strings.Fields(lines[0])
		return len(f) == 10 && f[2] == strconv.Itoa(req) && f[3] == strconv.Itoa(rsp) && len(strings.Fields(lines[1])) == 2
	}
}

// seed004 is the recipe of seed 004 (Rick Jones on DNS over UDP and TCP):
// one netperf with a control connection that makes netserver open data
// port 12345, and a tenth of a second later sixteen with -N at that port,
// each from its own source address, all at once; the test's length cut
// to two seconds, the addresses the test namespaces'.
const seed004 = `NP=$1; T=$2
$NP -H 198.18.0.2 -t $T -c -C -l 2 -P 0 -- -r 128,4096 -P ,12345 > out.0 2>&1 &
sleep 0.1
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
do
   $NP -H 198.18.0.2 -t $T -c -C -l 2 -N -P 0 -- -r 128,4096 -P ,12345 -L 198.18.1.$i > out.$i 2>&1 &
done
wait`

// TestSeed004InNamespaces runs seed 004's recipe with netscript as
// netperf in one namespace against netperf 2.7.1's netserver in another,
// for UDP_RR and TCP_CRR: all seventeen netperfs complete and print
// netperf's two lines (with -c -C), as netperf's own do.
func TestSeed004InNamespaces(t *testing.T) {
	cli, srv := netns.New(t, "s4-cli"), netns.New(t, "s4-srv")
	veth := netns.Link(t, cli, srv, "198.18.0.1/16", "198.18.0.2/16")
	for i := 1; i <= 16; i++ {
		cli.AddAddr(t, veth.DevA, fmt.Sprintf("198.18.1.%d/16", i))
	}
	ns := srv.Start(t, netservertest.Binary(t, "netserver"), "-D", "-p", "12865", "-L", "198.18.0.2", "-4")
	waitListen(t, srv, "198.18.0.2:12865", ns)
	for _, test := range []string{"UDP_RR", "TCP_CRR"} {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := cli.Command(ctx, "sh", "-c", seed004, "seed004", bin+" netperf", test)
		cmd.Dir = dir
		out, err := childproc.CombinedOutput(cmd)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v\n%s", test, err, out)
		}
		done := 0
		for i := 0; i <= 16; i++ {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out.%d", i)))
			if err != nil {
				t.Fatal(err)
			}
			if cpuRR(128, 4096)(string(b)) {
				done++
			} else {
				t.Errorf("%s netperf %d printed:\n%s", test, i, b)
			}
		}
		if done != 17 {
			t.Errorf("%s: %d of 17 completed", test, done)
		}
	}
}

// waitListen waits until something listens at addr in ns (p is the
// process that should).
func waitListen(t *testing.T, ns *netns.NS, addr string, p *netns.Proc) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := ns.Do(func() error {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens at %s in %s: %v\n%s", addr, ns, err, p.Output())
		}
	}
}
