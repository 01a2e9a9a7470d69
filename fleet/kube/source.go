package kube

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Source says where Connect finds a cluster's configuration and what it
// may do with it.
type Source struct {
	// Kubeconfig is a kubeconfig's path; "" is $KUBECONFIG or
	// ~/.kube/config, else, inside a pod, the pod's service account.
	Kubeconfig string
	// Context chooses a context of the kubeconfig ("" its current one).
	Context string
	// Open, if set, opens Kubeconfig and every file it names (a token
	// file, a client key or certificate, a CA) instead of the file
	// system's open: a kubeconfig a script names is read within the
	// script's read permissions. Such a kubeconfig may not name a command
	// to run (an exec or auth-provider credential plugin), which reading
	// it would otherwise let a script do. A kubeconfig found as kubectl
	// finds it is the person's own and is read as kubectl reads it.
	Open func(path string) (io.ReadCloser, error)
	// Reach, if set, is asked about each host the client would connect
	// to (the API server, a proxy the kubeconfig names) before Connect
	// returns; its error is returned as it is.
	Reach func(host string) error
}

// maxKubeconfig bounds a kubeconfig, or a file it names, read through
// Source.Open: real ones are a few kilobytes.
const maxKubeconfig = 4 << 20

// confined reads the kubeconfig src names through src.Open, refuses its
// credential plugins, and inlines the files it names, read through
// src.Open too, so that client-go opens nothing itself.
func (src Source) confined() (clientcmd.ClientConfig, error) {
	read := func(path string) ([]byte, error) {
		f, err := src.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxKubeconfig+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxKubeconfig {
			return nil, fmt.Errorf("%s: larger than %d bytes", path, maxKubeconfig)
		}
		return b, nil
	}
	name := src.Kubeconfig
	b, err := read(name)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", name, err)
	}
	cfg, err := clientcmd.Load(b)
	if err != nil {
		// clientcmd's message may quote the file; a script may name any
		// file it can read, so say only that it is not a kubeconfig.
		return nil, fmt.Errorf("kubeconfig %s: not a kubeconfig (YAML or JSON of kind Config)", name)
	}
	dir := filepath.Dir(name)
	inline := func(what, ref string) ([]byte, error) {
		if !filepath.IsAbs(ref) {
			ref = filepath.Join(dir, ref)
		}
		b, err := read(ref)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %s: %w", name, what, err)
		}
		return b, nil
	}
	for n, u := range cfg.AuthInfos {
		if u.Exec != nil {
			return nil, fmt.Errorf("kubeconfig %s: user %q runs a command (exec: %q), which a kubeconfig a script names may not; give it as $KUBECONFIG to allow it", name, n, u.Exec.Command)
		}
		if u.AuthProvider != nil {
			return nil, fmt.Errorf("kubeconfig %s: user %q runs an auth provider (%q), which a kubeconfig a script names may not; give it as $KUBECONFIG to allow it", name, n, u.AuthProvider.Name)
		}
		if u.TokenFile != "" {
			t, err := inline("token file", u.TokenFile)
			if err != nil {
				return nil, err
			}
			u.Token, u.TokenFile = strings.TrimSpace(string(t)), ""
		}
		if u.ClientCertificate != "" {
			if u.ClientCertificateData, err = inline("client certificate", u.ClientCertificate); err != nil {
				return nil, err
			}
			u.ClientCertificate = ""
		}
		if u.ClientKey != "" {
			if u.ClientKeyData, err = inline("client key", u.ClientKey); err != nil {
				return nil, err
			}
			u.ClientKey = ""
		}
	}
	for _, c := range cfg.Clusters {
		if c.CertificateAuthority != "" {
			if c.CertificateAuthorityData, err = inline("certificate authority", c.CertificateAuthority); err != nil {
				return nil, err
			}
			c.CertificateAuthority = ""
		}
	}
	return clientcmd.NewNonInteractiveClientConfig(*cfg, src.Context, &clientcmd.ConfigOverrides{CurrentContext: src.Context}, nil), nil
}

// hosts are the hosts a client of cfg connects to: the API server's, and
// the proxy's when the kubeconfig names one (a proxy from the
// environment is the person's own).
func hosts(cfg *rest.Config) ([]string, error) {
	raw := cfg.Host
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("kubernetes: server %q: not a URL", cfg.Host)
	}
	out := []string{u.Host}
	if cfg.Proxy != nil {
		p, err := cfg.Proxy(&http.Request{URL: u})
		if err != nil {
			return nil, fmt.Errorf("kubernetes: proxy: %w", err)
		}
		if p != nil {
			out = append(out, p.Host)
		}
	}
	return out, nil
}
