package kubetest

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"netscript/engine/netns"
)

// DNS runs Debian's dnsmasq inside ns on its loopback, on a port the
// kernel chose, answering for domain (e.g. "cluster.local") from the
// records given as dnsmasq options (--host-record=NAME,IP for A and AAAA
// records, --srv-host=NAME,TARGET,PORT for SRV) and nothing else: no
// /etc/hosts, no upstream server, NXDOMAIN for other names of domain. It
// returns the server's address once it answers; it is killed at cleanup.
func DNS(t testing.TB, ns *netns.NS, domain string, records ...string) string {
	t.Helper()
	bin, err := exec.LookPath("dnsmasq")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/dnsmasq"); err != nil {
			missing(t, "no dnsmasq (Debian: apt-get install dnsmasq-base)")
		}
	}
	port := freeUDPPort(t, ns)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args := []string{"--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--no-poll",
		"--listen-address=127.0.0.1", "--bind-interfaces", "--port=" + strconv.Itoa(port), "--pid-file",
		"--user=root", "--log-facility=-", "--log-queries", "--local=/" + domain + "/"}
	p := ns.Start(t, bin, append(args, records...)...)
	r := ResolverIn(ns, addr)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := r.LookupNetIP(ctx, "ip", "probe."+domain+".")
		cancel()
		var de *net.DNSError
		if err == nil || (errors.As(err, &de) && de.IsNotFound) {
			return addr // it answered, if only that the name is not there
		}
		select {
		case <-p.Done():
			t.Fatalf("dnsmasq exited (%v):\n%s", p.Err(), tail(p.Output()))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("dnsmasq at %s does not answer: %v\n%s", addr, err, tail(p.Output()))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ResolverIn is a resolver that asks only the DNS server at addr, over
// sockets made inside ns.
func ResolverIn(ns *netns.NS, addr string) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var c net.Conn
		err := ns.Do(func() (err error) {
			var d net.Dialer
			c, err = d.DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}}
}

// freeUDPPort is a port of ns's loopback free for both UDP and TCP (a DNS
// server takes both).
func freeUDPPort(t testing.TB, ns *netns.NS) int {
	t.Helper()
	var port int
	err := ns.Do(func() error {
		for range 100 {
			u, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			port = u.LocalAddr().(*net.UDPAddr).Port
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			u.Close()
			if err == nil {
				l.Close()
				return nil
			}
		}
		return &net.AddrError{Err: "no port free for both UDP and TCP", Addr: "127.0.0.1"}
	})
	if err != nil {
		t.Fatalf("kubetest: a DNS port in %s: %v", ns, err)
	}
	return port
}
