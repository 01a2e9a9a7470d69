package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// beforeHeartbeats is the last commit before heartbeats (protocol version
// 3 without Setup.heartbeat_ns and Heartbeat): its netscript is the peer
// of the previous release that this one must still work with.
const beforeHeartbeats = "5ef682f"

// oldNetscript builds netscript as it was at beforeHeartbeats, from this
// repository's history, or skips the test where the history is not there
// (a shallow clone, an exported tree).
func oldNetscript(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to build the release before heartbeats")
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

// TestMixedVersionsLiveness: heartbeats are negotiated, so each side of
// this release runs tests with a peer of the release before them as it
// did. The old daemon refuses the Setup that asks for heartbeats (its log
// says so) and the client runs the test again without; an old client never
// asks and the new daemon sends it none. Without heartbeats the client
// still notices a stopped old daemon by its stalled data path.
func TestMixedVersionsLiveness(t *testing.T) {
	old := oldNetscript(t)
	oldDaemon := watchDaemon(t, exec.Command(old, "serve", "--listen", "127.0.0.1:0"), 0)
	newDaemon := startDaemon(t, nil)
	check := func(who string, r ran) {
		t.Helper()
		if r.code != 0 || strings.TrimSpace(r.stdout) != "True" {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s", who, r.code, r.stdout, r.stderr)
		}
	}
	code := func(w string, port int) string {
		return fmt.Sprintf("r = %s(host='127.0.0.1', port=%d, duration=0.5)\nprint(r.remote != None and r.throughput > 0)", w, port)
	}
	for _, w := range []string{"tcp_rr", "tcp_stream"} {
		check("new client, old daemon: "+w, netscriptEnv(t, 60*time.Second, nil, "-c", code(w, oldDaemon.port)))
		r := runBin(t, 60*time.Second, cleanEnv(), "-c", code(w, newDaemon.port))
		check("new client, new daemon: "+w, r)
		cmd := exec.Command(old, "-c", code(w, newDaemon.port))
		cmd.Env = cleanEnv()
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != "True" {
			t.Errorf("old client, new daemon: %s: %v, stdout %q", w, err, out)
		}
	}
	if !strings.Contains(oldDaemon.stderr.String(), `unknown field "heartbeat_ns"`) {
		t.Errorf("the old daemon was never asked for heartbeats:\n%s", oldDaemon.stderr)
	}
	if log := strings.TrimSpace(newDaemon.stderr.String()); strings.Count(log, "\n") > 0 { // more than it listens
		t.Errorf("the new daemon logged a problem with a client:\n%s", newDaemon.stderr)
	}

	// A stopped old daemon: no heartbeats to miss, the stall tells.
	p := startOnPTY(t, []string{"-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=60)", oldDaemon.port)})
	p.expectRE(measuringAny, 60*time.Second)
	if err := oldDaemon.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer oldDaemon.cmd.Process.Signal(syscall.SIGCONT)
	stopped := time.Now()
	out, err := p.wait(50 * time.Second)
	r := ran{stderr: visible(out), took: time.Since(stopped)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	t.Logf("the client stopped %v after the old daemon did: %s", r.took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	oneLine(t, r, 1, "tcp_rr: no progress on the data connection for ", "measured before that: ")
	if r.took > 30*time.Second {
		t.Errorf("the client noticed %v after the stop", r.took)
	}
}
