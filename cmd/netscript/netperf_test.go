package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"netscript/engine/auth"
)

// netperfPeers is the reference netperf 2.7.1 beside the project
// (../shared/peers/netperf-2.7.1 of the project root); the test fails
// naming it when it is missing.
func netperfPeers(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("the project root %s has no go.mod: %v", dir, err)
	}
	peers := filepath.Join(dir, "..", "shared", "peers", "netperf-2.7.1")
	if _, err := os.Stat(filepath.Join(peers, "netperf")); err != nil {
		t.Fatalf("the reference netperf 2.7.1 is missing: want netperf in %s (the project's ../shared/peers/netperf-2.7.1): %v", peers, err)
	}
	return peers
}

// TestNetperfListenNeedsInsecure: a daemon with a token refuses
// --netperf-listen, which would let anyone run tests without it, unless
// --netperf-insecure says so; one line says why.
func TestNetperfListenNeedsInsecure(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("correct horse battery staple\n"), 0o600)
	r := runBin(t, 30*time.Second, cleanEnv(), "serve", "--listen", "127.0.0.1:0", "--token-file", tok, "--netperf-listen", "127.0.0.1:0")
	oneLine(t, r, exitUsage, "--netperf-listen", "--netperf-insecure", "token")
	r = runBin(t, 30*time.Second, append(cleanEnv(), auth.EnvToken+"=sesame-sesame-sesame"), "serve", "--listen", "127.0.0.1:0",
		"--netperf-listen", "127.0.0.1:0")
	oneLine(t, r, exitUsage, "--netperf-listen", "--netperf-insecure")
}

// answering is the daemon's line that says where it answers netperf.
var answering = regexp.MustCompile(`answering netperf clients on (127\.0\.0\.1:[0-9]+)`)

// TestNetperfListen: `netscript serve --netperf-listen` (here beside a
// token, with --netperf-insecure) answers the reference netperf, which
// exits 0, and logs what it counted.
func TestNetperfListen(t *testing.T) {
	peers := netperfPeers(t)
	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("correct horse battery staple\n"), 0o600)
	d := startDaemon(t, nil, "--token-file", tok, "--netperf-listen", "127.0.0.1:0", "--netperf-insecure")
	var addr string
	waitFor(t, 30*time.Second, "the netperf listener's line", func() bool {
		m := answering.FindStringSubmatch(d.stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	host, port, _ := strings.Cut(addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(peers, "netperf"), "-H", host, "-p", port, "-t", "TCP_RR", "-l", "1").CombinedOutput()
	if err != nil {
		t.Fatalf("netperf: %v\n%s\ndaemon:\n%s", err, out, d.stderr.String())
	}
	waitFor(t, 30*time.Second, "the daemon's count", func() bool {
		return regexp.MustCompile(`TCP_RR: [1-9][0-9]* transactions`).MatchString(d.stderr.String())
	})
}
