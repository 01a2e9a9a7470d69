package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"netscript/engine/netns"
)

// ServiceRange and AdvertiseAddress are the API server's service network
// and the address it announces itself under: inside the benchmarking
// range, as every address a test uses.
const (
	ServiceRange     = "198.19.0.0/24"
	AdvertiseAddress = "198.18.255.254"
)

// readyTimeout bounds how long the API server may take to say it is ready
// (about 10 s on an idle machine; generous for a loaded one).
const readyTimeout = 3 * time.Minute

// Cluster is a running API server on etcd inside a namespace: what a test
// needs to reach it as the cluster's administrator.
type Cluster struct {
	// URL is the API server's address, https://127.0.0.1:PORT on the
	// namespace's loopback.
	URL string
	// Token is the administrator's bearer token (group system:masters).
	Token string
	// CAFile holds the certificate the API server made for itself, which
	// a client trusts to reach URL.
	CAFile string
	// Kubeconfig is a kubeconfig file for URL, CAFile and Token, for
	// programs run inside the namespace.
	Kubeconfig string
	// NS is the namespace the processes run in.
	NS *netns.NS
}

// Start runs etcd and kube-apiserver inside ns, both on its loopback with
// ports the kernel chose, and returns once the API server answers /readyz.
// With no controller manager nor scheduler, nothing acts on what a test
// creates: a Pod stays as created until the test sets its status. The
// processes are killed and their files removed at cleanup.
func Start(t testing.TB, ns *netns.NS) *Cluster {
	t.Helper()
	kas, etcd := Binaries(t)
	dir := t.TempDir()
	ports := freePorts(t, ns, 3)
	client := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	ns.Start(t, etcd, "--name=kubetest", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=kubetest="+peer, "--logger=zap", "--log-level=warn")

	c := &Cluster{NS: ns, Token: randomHex(t), URL: "https://127.0.0.1:" + strconv.Itoa(ports[2])}
	tokens := filepath.Join(dir, "tokens.csv")
	writeFile(t, tokens, c.Token+",admin,admin-uid,system:masters\n")
	key, pub := serviceAccountKeys(t, dir)
	certs := filepath.Join(dir, "certs")
	p := ns.Start(t, kas, "--etcd-servers="+client,
		"--token-auth-file="+tokens,
		"--service-account-key-file="+pub, "--service-account-signing-key-file="+key,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--secure-port="+strconv.Itoa(ports[2]), "--bind-address=127.0.0.1",
		"--advertise-address="+AdvertiseAddress, "--service-cluster-ip-range="+ServiceRange,
		"--cert-dir="+certs, "--authorization-mode=RBAC", "--enable-priority-and-fairness=false")
	c.CAFile = filepath.Join(certs, "apiserver.crt")
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	writeFile(t, c.Kubeconfig, c.kubeconfig(c.Token))
	c.waitReady(t, p)
	return c
}

// Config returns a client-go configuration for the administrator, whose
// connections are made inside the cluster's namespace.
func (c *Cluster) Config() *rest.Config {
	return c.ConfigFor(c.Token)
}

// ConfigFor is Config with another bearer token (a service account's).
func (c *Cluster) ConfigFor(token string) *rest.Config {
	return &rest.Config{
		Host:            c.URL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile},
		Dial:            c.dial,
		Timeout:         30 * time.Second,
	}
}

// KubeconfigFor writes a kubeconfig for token and returns its path.
func (c *Cluster) KubeconfigFor(t testing.TB, token string) string {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	writeFile(t, path, c.kubeconfig(token))
	return path
}

func (c *Cluster) kubeconfig(token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kubetest
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: kubetest
  user:
    token: %s
contexts:
- name: kubetest
  context:
    cluster: kubetest
    user: kubetest
current-context: kubetest
`, c.URL, c.CAFile, token)
}

// dial opens a connection from inside the cluster's namespace (the socket
// belongs to the namespace for its whole life, whichever thread uses it).
func (c *Cluster) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var conn net.Conn
	err := c.NS.Do(func() (err error) {
		var d net.Dialer
		conn, err = d.DialContext(ctx, network, addr)
		return err
	})
	return conn, err
}

// waitReady polls /readyz until it says ok, the process exits or the
// deadline passes.
func (c *Cluster) waitReady(t testing.TB, p *netns.Proc) {
	t.Helper()
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: c.dial,
		// Not yet the certificate: the API server writes it as it starts.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(readyTimeout)
	var last string
	for time.Now().Before(deadline) {
		select {
		case <-p.Done():
			t.Fatalf("kube-apiserver exited (%v) before it was ready:\n%s", p.Err(), tail(p.Output()))
		case <-time.After(250 * time.Millisecond):
		}
		req, _ := http.NewRequest("GET", c.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		resp, err := hc.Do(req)
		if err != nil {
			last = err.Error()
			continue
		}
		b := make([]byte, 512)
		n, _ := resp.Body.Read(b)
		resp.Body.Close()
		last = fmt.Sprintf("%s: %s", resp.Status, b[:n])
		if resp.StatusCode == http.StatusOK {
			return
		}
	}
	t.Fatalf("kube-apiserver not ready within %v (last: %s):\n%s", readyTimeout, last, tail(p.Output()))
}

// freePorts returns n TCP ports of ns's loopback that the kernel chose
// (it was asked for port 0 n times at once, so they differ).
func freePorts(t testing.TB, ns *netns.NS, n int) []int {
	t.Helper()
	var ports []int
	err := ns.Do(func() error {
		var ls []net.Listener
		defer func() {
			for _, l := range ls {
				l.Close()
			}
		}()
		for range n {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			ls = append(ls, l)
			ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("kubetest: ports in %s: %v", ns, err)
	}
	return ports
}

// serviceAccountKeys writes the key pair that signs and checks service
// account tokens.
func serviceAccountKeys(t testing.TB, dir string) (key, pub string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	key, pub = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	writeFile(t, key, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})))
	writeFile(t, pub, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
	return key, pub
}

func randomHex(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func writeFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tail is the last 4 KiB of a process's output.
func tail(s string) string {
	if len(s) > 4096 {
		return "..." + s[len(s)-4096:]
	}
	return s
}
