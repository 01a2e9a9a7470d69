package kube

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
)

// openFrom returns a Source.Open that serves the files of m and refuses
// any other, counting what was opened.
func openFrom(m map[string]string, opened *[]string) func(string) (io.ReadCloser, error) {
	return func(path string) (io.ReadCloser, error) {
		*opened = append(*opened, path)
		s, ok := m[path]
		if !ok {
			return nil, fs.ErrPermission
		}
		return io.NopCloser(strings.NewReader(s)), nil
	}
}

const confinedConfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://198.18.0.9:6443
    certificate-authority: ca.pem
    proxy-url: http://198.18.0.10:3128
users:
- name: u
  user:
    tokenFile: /lab/token
contexts:
- name: x
  context: {cluster: c, user: u, namespace: agents}
current-context: x
`

// TestConfined: a script's kubeconfig and the files it names are read
// through Open (relative ones beside it), inlined, and the hosts asked
// about are the server's and the proxy's; a plugin is refused.
func TestConfined(t *testing.T) {
	var opened []string
	files := map[string]string{"kc/config": confinedConfig, "/lab/token": "t0k3n\n"}
	_, _, err := load(Source{Kubeconfig: "kc/config", Open: openFrom(files, &opened)})
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "certificate authority") {
		t.Errorf("a CA that cannot be opened: %v", err)
	}
	files["kc/ca.pem"] = "the CA"
	opened = nil
	cfg, ns, err := load(Source{Kubeconfig: "kc/config", Open: openFrom(files, &opened)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BearerToken != "t0k3n" || cfg.BearerTokenFile != "" || string(cfg.CAData) != "the CA" || cfg.CAFile != "" || ns != "agents" {
		t.Errorf("token %q file %q, CA %q file %q, namespace %q; want the files' contents inlined", cfg.BearerToken, cfg.BearerTokenFile, cfg.CAData, cfg.CAFile, ns)
	}
	if got := strings.Join(opened, " "); got != "kc/config /lab/token kc/ca.pem" {
		t.Errorf("opened %q; want the kubeconfig, then its files, a relative one beside it", got)
	}
	hs, err := hosts(cfg)
	if err != nil || strings.Join(hs, " ") != "198.18.0.9:6443 198.18.0.10:3128" {
		t.Errorf("hosts %v %v; want the server's and the proxy's", hs, err)
	}
	for _, plugin := range []string{
		"    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/true}\n",
		"    auth-provider: {name: oidc, config: {}}\n",
	} {
		kc := strings.Replace(confinedConfig, "    tokenFile: /lab/token\n", plugin, 1)
		kc = strings.Replace(kc, "    certificate-authority: ca.pem\n", "", 1)
		_, _, err := load(Source{Kubeconfig: "kc/config", Open: openFrom(map[string]string{"kc/config": kc}, &opened)})
		if err == nil || !strings.Contains(err.Error(), "$KUBECONFIG") {
			t.Errorf("%s: %v; want it refused", strings.TrimSpace(plugin), err)
		}
	}
}

// FuzzConfined: whatever bytes a script names as a kubeconfig, reading
// it never panics, never opens a file but through Open, and what comes
// back runs no plugin and names no file.
func FuzzConfined(f *testing.F) {
	f.Add([]byte(confinedConfig))
	f.Add([]byte("apiVersion: v1\nkind: Config\n"))
	f.Add([]byte(`{"kind":"Config","users":[{"name":"u","user":{"exec":{"command":"sh"}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		open := func(path string) (io.ReadCloser, error) {
			if path == "kc" {
				return io.NopCloser(bytes.NewReader(b)), nil
			}
			return io.NopCloser(strings.NewReader("x")), nil
		}
		cc, err := Source{Kubeconfig: "kc", Open: open}.confined()
		if err != nil {
			return
		}
		raw, err := cc.RawConfig()
		if err != nil {
			return
		}
		for n, u := range raw.AuthInfos {
			if u.Exec != nil || u.AuthProvider != nil || u.TokenFile != "" || u.ClientCertificate != "" || u.ClientKey != "" {
				t.Errorf("user %q kept a plugin or a file: %+v", n, u)
			}
		}
		for n, c := range raw.Clusters {
			if c.CertificateAuthority != "" {
				t.Errorf("cluster %q kept a CA file", n)
			}
		}
	})
}
