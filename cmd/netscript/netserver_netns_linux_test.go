package main

import (
	"encoding/json"
	"net"
	"testing"
	"time"

	"netscript/engine/client/netservertest"
	"netscript/engine/netns"
)

// TestNetserverFastOpenInNamespaces: TCP_CRR with fastopen toward an
// unmodified netserver in a namespace whose net.ipv4.tcp_fastopen is 3:
// netserver's listener takes the requests in the SYNs, as its kernel's
// TcpExtTCPFastOpenPassive counts, and netscript's count of accepted Fast
// Opens is that number (netserver itself reports none: server_accepted
// is None).
func TestNetserverFastOpenInNamespaces(t *testing.T) {
	const key = "net.ipv4.tcp_fastopen"
	nsBin := netservertest.Binary(t, "netserver")
	cli, srv := netns.New(t, "nstfo-cli"), netns.New(t, "nstfo-srv")
	netns.Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
	srv.Sysctl(t, key, "3")
	cli.Sysctl(t, key, "1")
	p := srv.Start(t, nsBin, "-D", "-p", "12865", "-L", "198.18.0.2", "-4")
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := srv.Do(func() error {
			c, err := net.DialTimeout("tcp", "198.18.0.2:12865", time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("netserver in %s did not listen: %v\n%s", srv, err, p.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s0, c0 := srv.Counters(t), cli.Counters(t)
	out, _ := clientIn(t, cli, `r = tcp_crr(host="198.18.0.2", server="netserver", transactions=300, fastopen=True)
print(json.encode(r.to_dict()))`)
	s1, c1 := srv.Counters(t), cli.Counters(t)
	var r struct {
		Transactions uint64
		Remote       struct{ Transactions uint64 }
		FastOpen     struct {
			Attempted      uint64
			Accepted       uint64
			ServerAccepted *uint64 `json:"server_accepted"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	f := r.FastOpen
	passive := delta(s0, s1, "TcpExtTCPFastOpenPassive")
	t.Logf("netscript: %+v; server Passive %d, client Active %d", f, passive, delta(c0, c1, "TcpExtTCPFastOpenActive"))
	if r.Transactions != 300 || r.Remote.Transactions != 300 {
		t.Errorf("%d transactions, netserver counted %d, want 300", r.Transactions, r.Remote.Transactions)
	}
	if f.Accepted < 250 || passive != int64(f.Accepted) {
		t.Errorf("%d of %d Fast Opens accepted, the server's kernel counted %d", f.Accepted, f.Attempted, passive)
	}
	if f.ServerAccepted != nil {
		t.Errorf("server_accepted %d: netserver reports none", *f.ServerAccepted)
	}
}
