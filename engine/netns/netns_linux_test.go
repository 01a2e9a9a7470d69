package netns

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestLinkTCP4(t *testing.T) {
	noLeaks(t)
	a, b := New(t, "a"), New(t, "b")
	v := Link(t, a, b, "198.18.0.1/24", "198.18.0.2/24")
	if v.DevA != "veth0" || v.DevB != "veth0" || v.AddrA.String() != "198.18.0.1/24" {
		t.Errorf("Link made %+v", v)
	}
	ln := listen(t, b, "198.18.0.2:0")
	dial(t, a, "", ln.Addr().String())
	peer := accept(t, ln).(*net.TCPAddr)
	if got := peer.AddrPort().Addr().Unmap(); got != netip.MustParseAddr("198.18.0.1") {
		t.Errorf("listener in %s saw peer %v, want 198.18.0.1", b, got)
	}
}

func TestLinkTCP6(t *testing.T) {
	noLeaks(t)
	a, b := New(t, "a6"), New(t, "b6")
	Link(t, a, b, "2001:2::1/64", "2001:2::2/64")
	ln := listen(t, b, "[2001:2::2]:0")
	dial(t, a, "", ln.Addr().String())
	peer := accept(t, ln).(*net.TCPAddr)
	if got := peer.AddrPort().Addr(); got != netip.MustParseAddr("2001:2::1") {
		t.Errorf("listener in %s saw peer %v, want 2001:2::1", b, got)
	}
}

func TestSixteenSources(t *testing.T) {
	noLeaks(t)
	cli, srv := New(t, "cli16"), New(t, "srv16")
	v := Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
	var want []string
	for i := 1; i <= 16; i++ {
		a := fmt.Sprintf("198.18.1.%d", i)
		cli.AddAddr(t, v.DevA, a+"/32")
		want = append(want, a)
	}
	srv.AddRoute(t, "198.18.1.0/24", v.DevB, "")
	ln := listen(t, srv, "198.18.0.2:0")
	var got []string
	for _, src := range want {
		c := dial(t, cli, src, ln.Addr().String())
		if l := c.LocalAddr().(*net.TCPAddr).IP.String(); l != src {
			t.Errorf("bound to %s, connection's local address is %s", src, l)
		}
		got = append(got, accept(t, ln).(*net.TCPAddr).IP.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("the server saw peers %v, want %v", got, want)
	}
}

func TestMesh(t *testing.T) {
	noLeaks(t)
	a, b, c := New(t, "ma"), New(t, "mb"), New(t, "mc")
	ab := Link(t, a, b, "198.18.2.1/24", "198.18.2.2/24")
	bc := Link(t, b, c, "198.18.3.2/24", "198.18.3.3/24")
	ca := Link(t, c, a, "2001:2:0:4::3/64", "2001:2:0:4::1/64")
	if ab.DevA != "veth0" || bc.DevA != "veth1" || ca.DevA != "veth1" || ca.DevB != "veth1" {
		t.Errorf("device names: a-b %s/%s, b-c %s/%s, c-a %s/%s",
			ab.DevA, ab.DevB, bc.DevA, bc.DevB, ca.DevA, ca.DevB)
	}
	for _, hop := range []struct {
		from, to *NS
		src, dst string
	}{
		{a, b, "198.18.2.1", "198.18.2.2"},
		{c, b, "198.18.3.3", "198.18.3.2"},
		{a, c, "2001:2:0:4::1", "2001:2:0:4::3"},
	} {
		ln := listen(t, hop.to, net.JoinHostPort(hop.dst, "0"))
		dial(t, hop.from, "", ln.Addr().String())
		if got := accept(t, ln).(*net.TCPAddr).IP.String(); got != hop.src {
			t.Errorf("%s -> %s: peer %s, want %s", hop.from, hop.to, got, hop.src)
		}
	}
	// a and c have no link to 198.18.2.0/24 and 198.18.3.0/24 respectively:
	// nothing leaks between links.
	err := a.Do(func() error {
		c, err := net.Dial("tcp", "198.18.3.3:1")
		if err == nil {
			c.Close()
		}
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("a reached c's other link: %v", err)
	}
}

func TestRefuseAddresses(t *testing.T) {
	noLeaks(t)
	a, b := New(t, "ra"), New(t, "rb")
	for _, tt := range []struct {
		name string
		do   func(tb testing.TB)
		msg  string
	}{
		{"link 10/8", func(tb testing.TB) { Link(tb, a, b, "10.0.0.1/24", "10.0.0.2/24") }, "outside the benchmarking ranges"},
		{"link one bad end", func(tb testing.TB) { Link(tb, a, b, "198.18.0.1/24", "192.168.0.2/24") }, "192.168.0.2 is outside"},
		{"link mixed families", func(tb testing.TB) { Link(tb, a, b, "198.18.0.1/24", "2001:2::2/64") }, "different families"},
		{"addr documentation v6", func(tb testing.TB) { a.AddAddr(tb, "lo", "2001:db8::1/64") }, "outside"},
		{"addr wide prefix", func(tb testing.TB) { a.AddAddr(tb, "lo", "198.18.0.1/8") }, "wider than"},
		{"addr mapped", func(tb testing.TB) { a.AddAddr(tb, "lo", "::ffff:198.18.0.1/128") }, "outside"},
		{"route", func(tb testing.TB) { a.AddRoute(tb, "0.0.0.0/0", "lo", "") }, "outside"},
		{"route via", func(tb testing.TB) { a.AddRoute(tb, "198.18.9.0/24", "", "1.1.1.1") }, "1.1.1.1 is outside"},
		{"sysctl outside net", func(tb testing.TB) { a.Sysctl(tb, "kernel.hostname", "x") }, "only keys under net"},
		{"sysctl escape", func(tb testing.TB) { a.Sysctl(tb, "net/../kernel/hostname", "x") }, "only keys under net"},
	} {
		f := runFake(t, tt.do)
		if !f.Failed() || !strings.Contains(f.Logged(), tt.msg) || !strings.HasPrefix(f.Logged(), "netns: ") {
			t.Errorf("%s: failed %v, output %q; want a failure saying %q", tt.name, f.Failed(), f.Logged(), tt.msg)
		}
	}
	out := a.Run(t, "ip", "-o", "addr", "show")
	for _, bad := range []string{"10.0.0", "192.168", "2001:db8", "198.18.0.1/8", "ffff"} {
		if strings.Contains(out, bad) {
			t.Errorf("refused address %s was added anyway:\n%s", bad, out)
		}
	}
	if strings.Contains(a.Run(t, "ip", "link", "show"), "veth") {
		t.Error("a refused Link made a veth")
	}
}

func TestSysctl(t *testing.T) {
	noLeaks(t)
	const key = "net.ipv4.tcp_fastopen"
	before := hostSysctl(t, key)
	ns := New(t, "sysctl")
	value := "3"
	if before == "3" {
		value = "2" // still proves the value is the namespace's own
	}
	ns.Sysctl(t, key, value)
	if got := ns.ReadSysctl(t, key); got != value {
		t.Errorf("%s in %s reads %q, want %q", key, ns, got, value)
	}
	if got := strings.TrimSpace(ns.Run(t, "cat", "/proc/sys/net/ipv4/tcp_fastopen")); got != value {
		t.Errorf("a program in %s reads %s=%q, want %q", ns, key, got, value)
	}
	if after := hostSysctl(t, key); after != before {
		t.Errorf("the machine's own %s changed from %s to %s", key, before, after)
	}
	ns.Sysctl(t, "net.ipv4.ip_local_port_range", "20000 30000")
	if got := ns.ReadSysctl(t, "net.ipv4.ip_local_port_range"); strings.Join(strings.Fields(got), " ") != "20000 30000" {
		t.Errorf("ip_local_port_range reads %q", got)
	}
	f := runFake(t, func(tb testing.TB) { ns.Sysctl(tb, key, "banana") })
	if !f.Failed() || !strings.Contains(f.Logged(), "invalid argument") {
		t.Errorf("a bad value: failed %v, output %q", f.Failed(), f.Logged())
	}
}

func TestDoKeepsThreadsClean(t *testing.T) {
	noLeaks(t)
	ns := New(t, "threads")
	host, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("net:[%d]", ns.ino)
	for range 50 {
		err := ns.Do(func() error {
			got, err := os.Readlink("/proc/thread-self/ns/net")
			if err == nil && got != want {
				err = fmt.Errorf("thread is in %s, want %s", got, want)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC() // gives the runtime a chance to run goroutines on every thread
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		got, err := os.Readlink("/proc/self/task/" + task.Name() + "/ns/net")
		if err == nil && got != host {
			t.Errorf("thread %s is in %s, want %s (the test's own namespace)", task.Name(), got, host)
		}
	}

	if err := ns.Do(func() error { return fmt.Errorf("boom") }); err == nil || err.Error() != "boom" {
		t.Errorf("Do returned %v, want fn's error", err)
	}
	err = ns.Do(func() error { runtime.Goexit(); return nil })
	if err == nil || !strings.Contains(err.Error(), "Goexit") {
		t.Errorf("Do with a Goexit returned %v", err)
	}
	func() {
		defer func() {
			r := recover()
			if s, _ := r.(string); !strings.Contains(s, "netns: panic in "+ns.Name()+": on purpose") {
				t.Errorf("recovered %v", r)
			}
		}()
		ns.Do(func() error { panic("on purpose") })
		t.Error("Do did not panic")
	}()
}

func TestCounters(t *testing.T) {
	noLeaks(t)
	const n = 20
	cli, srv := New(t, "ccli"), New(t, "csrv")
	Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
	ln := listen(t, srv, "198.18.0.2:0")
	if _, ok := srv.Counters(t)["TcpExtTCPFastOpenPassive"]; !ok {
		t.Error("no TcpExtTCPFastOpenPassive counter")
	}
	// A third namespace that nobody uses shows the counters are each
	// namespace's own: its counters do not move at all while the other two
	// connect. (The machine's own counters would do as well on an idle
	// machine, but other tests, run at the same time, move them.)
	idle := New(t, "cidle")
	idleBefore, cliBefore, srvBefore := idle.Counters(t), cli.Counters(t), srv.Counters(t)
	for range n {
		c := dial(t, cli, "", ln.Addr().String())
		accept(t, ln)
		c.Close()
	}
	idleAfter, cliAfter, srvAfter := idle.Counters(t), cli.Counters(t), srv.Counters(t)
	if d := cliAfter["TcpActiveOpens"] - cliBefore["TcpActiveOpens"]; d < n {
		t.Errorf("%s: TcpActiveOpens grew by %d, want at least %d", cli, d, n)
	}
	if d := srvAfter["TcpPassiveOpens"] - srvBefore["TcpPassiveOpens"]; d < n {
		t.Errorf("%s: TcpPassiveOpens grew by %d, want at least %d", srv, d, n)
	}
	if d := srvAfter["TcpActiveOpens"] - srvBefore["TcpActiveOpens"]; d != 0 {
		t.Errorf("%s: TcpActiveOpens grew by %d, want 0", srv, d)
	}
	for _, k := range []string{"TcpActiveOpens", "TcpPassiveOpens", "TcpInSegs", "TcpOutSegs"} {
		if idleAfter[k] != idleBefore[k] {
			t.Errorf("%s: %s moved from %d to %d while nothing ran there", idle, k, idleBefore[k], idleAfter[k])
		}
	}
}
