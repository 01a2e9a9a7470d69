package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"netscript/engine/auth"
)

// childrenServing returns the pids of processes whose parent is ppid and
// whose command line is an embedded server.
func childrenServing(ppid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if !strings.Contains(string(cmd), "--embedded-fd") {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestEmbeddedServerIsAProcess: a script without a host talks to a server
// in a separate process (so its figures are a separate server's), and that
// process dies with the script even when the script is killed outright.
func TestEmbeddedServerIsAProcess(t *testing.T) {
	cmd := exec.Command(bin, "-c", "tcp_rr(duration=30)")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Polled with generous deadlines: a loaded machine may take seconds
	// to start the server and to reap it.
	var kids []int
	for deadline := time.Now().Add(30 * time.Second); len(kids) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		kids = childrenServing(cmd.Process.Pid)
	}
	if len(kids) != 1 {
		t.Fatalf("embedded server processes: %v, want one child of %d", kids, cmd.Process.Pid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// A zombie (left for init to reap) also counts as gone; anything still
	// running is a leak.
	stat := func() string {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(kids[0]), "stat"))
		return string(b)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st := stat()
		if st == "" || strings.Contains(st, ") Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("embedded server %d outlived its killed parent: %s", kids[0], st)
		}
	}
}

// TestTokenReachesEmbeddedServer: with a token, from a file or from
// $NETSCRIPT_TOKEN, a script's tests against its embedded server pass
// (the server asks for the token the script holds), and the token is
// neither on the server's command line nor in its environment.
func TestTokenReachesEmbeddedServer(t *testing.T) {
	const secret = "correct horse battery staple"
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte(secret+"\n"), 0o600)
	code := "r = tcp_rr(transactions=20)\nprint(r.transactions > 0 and r.remote.transactions == r.transactions + r.discarded)"
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"token file", nil, []string{"--token-file", file, "-c", code}},
		{"environment", []string{auth.EnvToken + "=" + secret}, []string{"-c", code}},
	} {
		r := netscriptEnv(t, 30*time.Second, c.env, c.args...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "True" {
			t.Errorf("%s: %+v", c.name, r)
		}
	}

	cmd := exec.Command(bin, "--token-file", file, "-c", "tcp_rr(duration=30)")
	cmd.Env = cleanEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var kids []int
	for i := 0; i < 250 && len(kids) == 0; i++ {
		time.Sleep(20 * time.Millisecond)
		kids = childrenServing(cmd.Process.Pid)
	}
	if len(kids) != 1 {
		t.Fatalf("embedded server processes: %v, want one child of %d", kids, cmd.Process.Pid)
	}
	for _, f := range []string{"cmdline", "environ"} {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(kids[0]), f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) || strings.Contains(string(b), fmt.Sprintf("%x", secret)) {
			t.Errorf("the token is in the embedded server's %s: %q", f, b)
		}
	}
}

// TestTokenNotInEnvironment: the token main loads reaches the tests
// through the script's session (session.Session.Token), not through this
// process's: a script that proved it to a daemon leaves $NETSCRIPT_TOKEN
// as it found it, unset.
func TestTokenNotInEnvironment(t *testing.T) {
	t.Setenv(auth.EnvToken, "") // restored when the test ends
	os.Unsetenv(auth.EnvToken)
	const secret = "correct horse battery staple"
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte(secret+"\n"), 0o600)
	d := startDaemon(t, nil, "--token-file", file)
	code := fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, transactions=10)", d.port)
	if got := run([]string{"--quiet", "--token-file", file, "-c", code}); got != exitOK {
		t.Fatalf("the script against a daemon with the token exited %d", got)
	}
	if v, ok := os.LookupEnv(auth.EnvToken); ok {
		t.Errorf("running the script set $%s=%q in its own process", auth.EnvToken, v)
	}
	for _, kv := range os.Environ() {
		if strings.Contains(kv, secret) {
			t.Errorf("the token is in this process's environment: %s", kv)
		}
	}
}
