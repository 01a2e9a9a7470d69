package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The fleet module reaches hosts itself, not through a test: fleet.probe
// connects to each agent's control port, fleet.kubernetes and
// fleet.service to the API server a kubeconfig names, fleet.dns to a DNS
// server. Under issue 28 each of those hosts is one the person running
// the script must allow (--allow-net), or the script ends with one line
// naming the flag and nothing is sent. Before this, fleet.probe was a
// port scanner any script could run.

// tcpCounter listens on 127.0.0.1 and counts the connections it accepts.
type tcpCounter struct {
	port  int
	conns atomic.Int64
}

func countTCP(t *testing.T) *tcpCounter {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &tcpCounter{port: l.Addr().(*net.TCPAddr).Port}
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			c.conns.Add(1)
			conn.Close()
		}
	}()
	return c
}

// apiCounter is an HTTPS server on 127.0.0.1 that answers every request
// 403, counting its connections and keeping each request's Authorization
// header (clientcmd sends credentials over TLS only).
type apiCounter struct {
	url   string
	conns atomic.Int64
	mu    sync.Mutex
	auth  []string
}

func countAPI(t *testing.T) *apiCounter {
	t.Helper()
	a := &apiCounter{}
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.auth = append(a.auth, r.Header.Get("Authorization"))
		a.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			a.conns.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	a.url = s.URL
	return a
}

// sent are the Authorization headers the server got.
func (a *apiCounter) sent() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.auth)
}

// countUDP binds a UDP socket on 127.0.0.1 and counts the datagrams it gets.
func countUDP(t *testing.T) (port int, got *atomic.Int64) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got = new(atomic.Int64)
	done := make(chan struct{})
	t.Cleanup(func() { pc.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	return pc.LocalAddr().(*net.UDPAddr).Port, got
}

// kubeconfig is a kubeconfig with one cluster at server and one user.
func kubeconfig(server, user string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ` + server + `
    insecure-skip-tls-verify: true
users:
- name: u
  user:
` + user + `
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`
}

func TestFleetNeedsAllowNet(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tree, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agent := countTCP(t)
	api := countAPI(t)
	dnsPort, dnsGot := countUDP(t)
	apiURL := api.url
	write("probe.star", fmt.Sprintf("print(fleet.probe([fleet.agent(\"127.0.0.1\", port = %d)]))\n", agent.port))
	write("kc.yaml", kubeconfig(apiURL, "    token: abc"))
	write("kube.star", "fleet.kubernetes(kubeconfig = \"kc.yaml\")\n")
	write("service.star", "fleet.service(\"vip\", kubeconfig = \"kc.yaml\")\n")
	write("dns.star", fmt.Sprintf("fleet.dns(\"agents.netscript.svc.cluster.local.\", server = \"127.0.0.1:%d\")\n", dnsPort))
	write("dns_system.star", "fleet.dns(\"agents.netscript.svc.cluster.local.\")\n")

	for _, c := range []struct {
		script string
		host   string
		sent   func() int64
	}{
		{"probe.star", "127.0.0.1", agent.conns.Load},
		{"kube.star", "127.0.0.1", api.conns.Load},
		{"service.star", "127.0.0.1", api.conns.Load},
		{"dns.star", "127.0.0.1", dnsGot.Load},
		{"dns_system.star", "agents.netscript.svc.cluster.local", nil},
	} {
		t.Run(c.script, func(t *testing.T) {
			r := inTree(t, tree, c.script)
			oneLine(t, r, exitScriptError, strings.TrimSuffix(c.script, ".star"), "not allowed to reach "+c.host, "--allow-net "+c.host)
			if c.sent != nil {
				if n := c.sent(); n != 0 {
					t.Errorf("%d connections or datagrams reached the host not allowed", n)
				}
			}
		})
	}

	// Allowed, each reaches its host.
	r := inTree(t, tree, "--allow-net=127.0.0.1", "probe.star")
	if r.code != exitOK || strings.TrimSpace(r.stdout) != "[None]" || agent.conns.Load() != 1 {
		t.Errorf("probe with --allow-net 127.0.0.1: exit %d, %q, %d connections; want [None] and 1\n%s", r.code, r.stdout, agent.conns.Load(), r.stderr)
	}
	r = inTree(t, tree, "--allow-net=127.0.0.1", "kube.star")
	if r.code != exitScriptError || !strings.Contains(r.stderr, "rbac.yaml") || api.conns.Load() == 0 {
		t.Errorf("kubernetes with --allow-net 127.0.0.1: exit %d, %d connections; want the API's 403\n%s", r.code, api.conns.Load(), r.stderr)
	}
	r = inTree(t, tree, "--allow-net=127.0.0.1", "dns.star")
	if r.code != exitScriptError || dnsGot.Load() == 0 {
		t.Errorf("dns with --allow-net 127.0.0.1: exit %d, %d queries; want the server asked\n%s", r.code, dnsGot.Load(), r.stderr)
	}
}

// TestFleetKubeconfigConfined: a kubeconfig a script names is a file the
// script reads, so it and the files it points to (a token file, keys,
// certificates) come from beneath the script's tree or --allow-read only,
// and it may not name a command to run (an exec or auth-provider
// credential plugin): a script from a mailing list would otherwise run
// any command, or send any file of the person's to an API server as a
// bearer token. $KUBECONFIG, the person's own choice, may.
func TestFleetKubeconfigConfined(t *testing.T) {
	root := t.TempDir()
	tree, outside := filepath.Join(root, "tree"), filepath.Join(root, "outside")
	for _, d := range []string{tree, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	api := countAPI(t)
	apiURL := api.url
	pwned := filepath.Join(root, "pwned")
	write(filepath.Join(outside, "token"), secretValue+"\n")
	write(filepath.Join(tree, "exec.yaml"), kubeconfig(apiURL, `    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /bin/sh
      args: ["-c", "touch `+pwned+`; echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}'"]
      interactiveMode: Never`))
	write(filepath.Join(tree, "tokenfile.yaml"), kubeconfig(apiURL, "    tokenFile: ../outside/token"))
	write(filepath.Join(outside, "kc.yaml"), kubeconfig(apiURL, "    token: abc"))
	write(filepath.Join(tree, "exec.star"), "fleet.kubernetes(kubeconfig = \"exec.yaml\")\n")
	write(filepath.Join(tree, "tokenfile.star"), "fleet.kubernetes(kubeconfig = \"tokenfile.yaml\")\n")
	write(filepath.Join(tree, "outside.star"), "fleet.kubernetes(kubeconfig = \"../outside/kc.yaml\")\n")

	r := inTree(t, tree, "--allow-net=127.0.0.1", "exec.star")
	oneLine(t, r, exitScriptError, "exec.yaml", "runs a command", "KUBECONFIG")
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the kubeconfig's exec plugin ran")
	}
	r = inTree(t, tree, "--allow-net=127.0.0.1", "tokenfile.star")
	oneLine(t, r, exitScriptError, "--allow-read "+outside)
	r = inTree(t, tree, "--allow-net=127.0.0.1", "outside.star")
	oneLine(t, r, exitScriptError, "--allow-read "+outside)
	for _, a := range api.sent() {
		if strings.Contains(a, secretValue) {
			t.Errorf("the token file outside the tree was sent: %q", a)
		}
	}
	if n := api.conns.Load(); n != 0 {
		t.Errorf("%d connections to the API server from kubeconfigs refused", n)
	}

	// Allowed to read outside, the token file is read and sent.
	r = inTree(t, tree, "--allow-net=127.0.0.1", "--allow-read", outside, "tokenfile.star")
	if r.code != exitScriptError || !strings.Contains(r.stderr, "rbac.yaml") {
		t.Errorf("--allow-read %s: exit %d, want the API's 403\n%s", outside, r.code, r.stderr)
	}
	if got := api.sent(); len(got) == 0 || got[0] != "Bearer "+secretValue {
		t.Errorf("the token file allowed was not sent: %q", got)
	}
	// The person's own $KUBECONFIG may run its plugin.
	write(filepath.Join(tree, "env.star"), "fleet.kubernetes()\n")
	r = netscriptEnv(t, 2*time.Minute, []string{"KUBECONFIG=" + filepath.Join(tree, "exec.yaml")}, "--allow-net=127.0.0.1", filepath.Join(tree, "env.star"))
	if _, err := os.Stat(pwned); err != nil {
		t.Errorf("$KUBECONFIG's exec plugin did not run: exit %d\n%s", r.code, r.stderr)
	}
}
