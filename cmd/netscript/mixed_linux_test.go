package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// beforeHeartbeats is the last commit before heartbeats (protocol version
// 3 without Setup.heartbeat_ns and Heartbeat): its netscript is a peer of
// a release before this one.
const beforeHeartbeats = "5ef682f"

// oldNetscript builds netscript as it was at beforeHeartbeats, from this
// repository's history, or skips the test where the history is not there
// (a shallow clone, an exported tree).
func oldNetscript(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to build a release of protocol version 3")
	}
	if out, err := exec.Command(git, "cat-file", "-e", beforeHeartbeats+"^{commit}").CombinedOutput(); err != nil {
		t.Skipf("commit %s is not in this clone's history: %s", beforeHeartbeats, strings.TrimSpace(string(out)))
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	// From the top of the work tree: in a subdirectory git archives only
	// that.
	top, err := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git work tree: %v", err)
	}
	archive := exec.Command("sh", "-c", fmt.Sprintf("%s archive %s | tar -x -C %s", git, beforeHeartbeats, tree))
	archive.Dir = strings.TrimSpace(string(top))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}
	old := filepath.Join(dir, "netscript-old")
	build := exec.Command("go", "build", "-o", old, "./cmd/netscript")
	build.Dir = tree
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the release before heartbeats: %v\n%s", err, out)
	}
	return old
}

// TestMixedVersions: version 4 replaced version 3's token exchange with a
// handshake that a relay cannot use and sealed every frame after it, so a
// peer of the release before cannot talk to this one: each side says so in
// one line that names both versions, before any test is set up, and the
// new daemon logs it. (Heartbeats and the server's TCP_INFO, once
// negotiated with version-3 peers, are part of every version-4 peer.)
func TestMixedVersions(t *testing.T) {
	old := oldNetscript(t)
	oldDaemon := watchDaemon(t, exec.Command(old, "serve", "--listen", "127.0.0.1:0"), 0)
	newDaemon := startDaemon(t, nil)
	code := func(port int) string {
		return fmt.Sprintf("print(tcp_rr(host='127.0.0.1', port=%d, duration=0.5))", port)
	}
	oneLine(t, netscriptEnv(t, 60*time.Second, nil, "-c", code(oldDaemon.port)), 1,
		fmt.Sprintf("tcp_rr: control 127.0.0.1:%d: protocol version mismatch: peer speaks version 3, this netscript speaks version 4; run the same netscript release on both ends", oldDaemon.port))
	cmd := exec.Command(old, "-c", code(newDaemon.port))
	cmd.Env = cleanEnv()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := ran{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	oneLine(t, r, 1, "protocol version mismatch: peer speaks version 4, this netscript speaks version 3")
	waitFor(t, 10*time.Second, "the new daemon to log the old client", func() bool {
		return strings.Contains(newDaemon.stderr.String(), "handshake: protocol version mismatch: peer speaks version 3, this netscript speaks version 4")
	})
}
