package kubetest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"netscript/engine/netns"
)

// SimAgent is one simulated agent: a `netscript serve --allow-client` on
// its own address of a host namespace.
type SimAgent struct {
	Address string // 198.18.H.A
	Host    int    // the index of its host namespace
	Proc    *netns.Proc
	ok      bool // its control port answered
}

// Sim is a fleet of simulated agents: host namespaces, each joined to the
// controller's namespace by a veth and holding up to 250 agents on
// addresses of that veth; the controller's namespace routes between them,
// so every agent reaches every other and the controller reaches all.
type Sim struct {
	Ctl       *netns.NS
	Hosts     []*netns.NS
	Agents    []SimAgent
	TokenFile string // the token every agent and the controller share
}

// SimFleet starts n agents of the netscript binary bin, perHost on each
// host namespace (1 to 250), with a shared token, and returns once every
// agent's control port answers from the controller's namespace. Host h's
// agents have 198.18.(h+1).2 onward; the controller's end of host h's
// veth is 198.18.(h+1).1. Everything is removed at cleanup.
func SimFleet(t testing.TB, bin string, n, perHost int, extra ...string) *Sim {
	t.Helper()
	if perHost < 1 || perHost > 250 || n < 1 || (n+perHost-1)/perHost > 250 {
		t.Fatalf("kubetest: %d agents, %d per host: want 1 to 250 per host and 250 hosts at most", n, perHost)
	}
	s := &Sim{Ctl: netns.New(t, "sim-ctl")}
	s.Ctl.Sysctl(t, "net.ipv4.ip_forward", "1")
	s.TokenFile = filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(s.TokenFile, []byte("simulated-fleet-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for h := 0; h*perHost < n; h++ {
		host := netns.New(t, fmt.Sprintf("sim-h%d", h))
		v := netns.Link(t, s.Ctl, host, fmt.Sprintf("198.18.%d.1/24", h+1), fmt.Sprintf("198.18.%d.2/24", h+1))
		host.AddRoute(t, "198.18.0.0/15", v.DevB, fmt.Sprintf("198.18.%d.1", h+1))
		s.Hosts = append(s.Hosts, host)
		for a := 0; a < perHost && h*perHost+a < n; a++ {
			addr := fmt.Sprintf("198.18.%d.%d", h+1, a+2)
			if a > 0 {
				host.AddAddr(t, v.DevB, addr+"/24")
			}
			s.Agents = append(s.Agents, SimAgent{Address: addr, Host: h})
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range s.Agents {
		a := &s.Agents[i]
		args := append([]string{"serve", "--listen", a.Address + ":12866", "--allow-client", "--quiet", "--token-file", s.TokenFile}, extra...)
		a.Proc = s.Hosts[a.Host].Start(t, bin, args...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			s.waitListening(a)
		}()
	}
	wg.Wait()
	for _, a := range s.Agents {
		if !a.ok {
			t.Fatalf("kubetest: agent %s does not answer:\n%s", a.Address, a.Proc.Output())
		}
	}
	return s
}

// waitListening dials the agent's control port from the controller's
// namespace until it answers (60 s at most).
func (s *Sim) waitListening(a *SimAgent) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		err := s.Ctl.Do(func() error {
			c, err := net.DialTimeout("tcp", a.Address+":12866", time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err == nil {
			a.ok = true
			return
		}
		select {
		case <-a.Proc.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}
