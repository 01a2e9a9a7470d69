package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/childproc"
	"netscript/engine/netns"
	"netscript/engine/npwire"
	"netscript/engine/proto"
	"netscript/engine/proto/manual"
)

// The reflection tests (issue 29, hole 2): three hosts. d runs the daemon;
// a is the attacker, who can send as v (a local route for v's address, as
// AnyIP would have it, and no reverse-path filter on d); v is the victim,
// whose listener of the test's own counts every byte that reaches it.
type reflection struct {
	d, a, v *netns.NS
	victim  netip.AddrPort // v's listener
	got     atomic.Int64   // bytes it received
	biggest atomic.Int64   // its largest datagram
}

const (
	reflectDaemon = "198.18.30.1"
	reflectVictim = "198.18.31.2"
)

func newReflection(t *testing.T, name string) *reflection {
	t.Helper()
	r := &reflection{d: netns.New(t, name+"-d"), a: netns.New(t, name+"-a"), v: netns.New(t, name+"-v")}
	da := netns.Link(t, r.d, r.a, reflectDaemon+"/24", "198.18.30.2/24")
	netns.Link(t, r.d, r.v, "198.18.31.1/24", reflectVictim+"/24")
	for _, k := range []string{"all", "default", da.DevA} {
		r.d.Sysctl(t, "net.ipv4.conf."+k+".rp_filter", "0")
	}
	r.a.Run(t, "ip", "link", "set", "lo", "up")
	r.a.Run(t, "ip", "route", "add", "local", reflectVictim+"/32", "dev", "lo")
	var l *net.UDPConn
	if err := r.v.Do(func() (err error) {
		l, err = net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(reflectVictim)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	r.victim = l.LocalAddr().(*net.UDPAddr).AddrPort()
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 1<<16)
		for {
			n, err := l.Read(buf)
			if err != nil {
				return
			}
			r.got.Add(int64(n))
			if int64(n) > r.biggest.Load() {
				r.biggest.Store(int64(n))
			}
		}
	}()
	return r
}

// stillServes is the end of every reflection test: the daemon p is alive,
// a good udp_rr from a runs through it, and its threads, descriptors and
// memory come back near before (read from /proc after the serveIn probe).
func (r *reflection) stillServes(t *testing.T, p *netns.Proc, before procFigures) {
	t.Helper()
	select {
	case <-p.Done():
		t.Fatalf("the daemon died: %v\n%s", p.Err(), p.Output())
	default:
	}
	out, _ := clientIn(t, r.a, fmt.Sprintf("print(udp_rr(host=%q, duration=1).transactions > 0)", reflectDaemon))
	if strings.TrimSpace(out) != "True" {
		t.Errorf("a good udp_rr after the attack printed %q", out)
	}
	waitFor(t, 30*time.Second, "the daemon's threads, descriptors and memory to come back", func() bool {
		f := readProc(t, p.Pid())
		return f.fds <= before.fds && f.threads <= before.threads+16 && f.rssKiB <= before.rssKiB+32<<10
	})
	t.Logf("daemon idle %+v, after the attack %+v", before, readProc(t, p.Pid()))
}

// spoof sends each of msgs from the victim's address and port, from a, to
// the daemon's port.
func (r *reflection) spoof(t *testing.T, port int, msgs ...[]byte) int64 {
	t.Helper()
	var sent int64
	err := r.a.Do(func() error {
		c, err := net.DialUDP("udp", net.UDPAddrFromAddrPort(r.victim), &net.UDPAddr{IP: net.ParseIP(reflectDaemon), Port: port})
		if err != nil {
			return err
		}
		defer c.Close()
		for _, m := range msgs {
			if n, err := c.Write(m); err == nil {
				sent += int64(n)
			}
			time.Sleep(100 * time.Microsecond)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sent
}

// settled is what the victim received, once it has stopped coming.
func (r *reflection) settled() int64 {
	for prev := int64(-1); prev != r.got.Load(); time.Sleep(300 * time.Millisecond) {
		prev = r.got.Load()
	}
	return r.got.Load()
}

// ones is n one-byte datagrams.
func ones(n int) [][]byte {
	m := make([][]byte, n)
	for i := range m {
		m[i] = []byte{1}
	}
	return m
}

// TestNoUDPReflection: an open daemon's UDP_RR endpoint, set up by the
// attacker for a response of 65,000 bytes, gets 1,000 one-byte datagrams
// from the victim's address before Start, the greeting of a flow from the
// victim's address (its Hello, and a Confirm with a made-up cookie), and
// after Start (the attacker's own flow greeted from its own address) 1,000
// more one-byte datagrams from the victim's address. The victim receives
// no byte of a response: at most the Ack of each spoofed Hello, 40 bytes
// for 40. On 84d21eb the endpoint answered every datagram from Setup on
// (65 MB for the first thousand; the test fails there).
func TestNoUDPReflection(t *testing.T) {
	r := newReflection(t, "refl")
	p := serveIn(t, r.d, reflectDaemon+":12866")
	idle := readProc(t, p.Pid())
	var pc *proto.Conn
	var key []byte
	var ready proto.Ready
	err := r.a.Do(func() (err error) {
		pc, key, ready, err = manual.Ask(reflectDaemon+":12866", nil,
			proto.Setup{Test: "UDP_RR", Request: 1, Response: 65000, DurationNs: int64(10 * time.Second)}, 10*time.Second)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()

	sent := r.spoof(t, ready.DataPort, ones(1000)...)
	if got := r.settled(); got != 0 {
		t.Errorf("before Start: the victim received %d bytes for the %d spoofed", got, sent)
	}
	// A greeting in the victim's name: the Ack goes to the victim, the
	// cookie with it, so the attacker cannot confirm.
	var made auth.Cookie
	hellos := r.spoof(t, ready.DataPort, auth.Greeting(key, auth.KindHello, 0, auth.Cookie{}),
		auth.Greeting(key, auth.KindConfirm, 0, made))
	if got := r.settled(); got > hellos || r.biggest.Load() > auth.GreetingSize {
		t.Errorf("the spoofed greeting: the victim received %d bytes (largest datagram %d) for %d spoofed", got, r.biggest.Load(), hellos)
	}
	before := r.got.Load()
	// The attacker's own flow, and Start.
	err = r.a.Do(func() error {
		c, err := net.Dial("udp", net.JoinHostPort(reflectDaemon, strconv.Itoa(ready.DataPort)))
		if err != nil {
			return err
		}
		defer c.Close()
		return manual.GreetDatagrams(c, key, 0, 10*time.Second)
	})
	if err != nil {
		t.Fatalf("the attacker's own flow: %v", err)
	}
	if err := pc.Send(proto.TypeStart, proto.Start{}, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := pc.Expect(proto.TypeStarted, &proto.Started{}, 10*time.Second); err != nil {
		t.Fatalf("Start: %v", err)
	}
	sent = r.spoof(t, ready.DataPort, ones(1000)...)
	if got := r.settled() - before; got != 0 {
		t.Errorf("after Start: the victim received %d bytes for the %d spoofed", got, sent)
	}
	t.Logf("the victim received %d bytes in all (largest datagram %d)", r.got.Load(), r.biggest.Load())
	pc.Close()
	r.stillServes(t, p, idle)
}

// TestNoNetperfReflection: a netperf UDP_RR request, made by hand, that
// names the victim's address as netperf's data address (netperf_ip), with
// a response of 65,000 bytes, is refused (errno 22); the victim's address
// then sends 1,000 one-byte datagrams to every port the daemon could have
// opened, and receives nothing. On 84d21eb the request was taken and each
// datagram answered with 65,000 bytes (the test fails there).
func TestNoNetperfReflection(t *testing.T) {
	r := newReflection(t, "nprefl")
	p := serveIn(t, r.d, reflectDaemon+":12866", "--netperf-listen", reflectDaemon+":12865")
	idle := readProc(t, p.Pid())
	req := npwire.OmniRequest{RequestSize: 1, ResponseSize: 65000, TestLength: 10, IPFamily: npwire.NFInet,
		SocketType: npwire.NSTDgram, Protocol: 17, Direction: npwire.DirSend | npwire.DirRecv}
	v := r.victim.Addr().As4()
	req.NetperfIP[0] = uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3])
	req.NetperfPort = uint32(r.victim.Port())
	var rsp *npwire.Message
	var c net.Conn
	err := r.a.Do(func() (err error) {
		c, err = net.DialTimeout("tcp", reflectDaemon+":12865", 5*time.Second)
		if err != nil {
			return err
		}
		t.Cleanup(func() { c.Close() })
		if err := npwire.Write(c, req.Message(-1), 5*time.Second); err != nil {
			return err
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		rsp, err = npwire.Read(c)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if rsp.Word2 == 0 {
		port := int(npwire.DecodeOmniResponse(rsp).DataPort)
		sent := r.spoof(t, port, ones(1000)...)
		t.Errorf("the request naming the victim was taken (data port %d); the victim received %d bytes for the %d spoofed", port, r.settled(), sent)
		return
	}
	if rsp.Word2 != 22 {
		t.Errorf("refused with errno %d, want 22", rsp.Word2)
	}
	if got := r.settled(); got != 0 {
		t.Errorf("the victim received %d bytes", got)
	}
	c.Close()
	r.stillServes(t, p, idle)
}

// TestNoStandingReflection: a standing UDP_RR endpoint (--data) has no
// handshake to tell its client from anyone who spoofs its address, so it
// answers no datagram with more bytes than it carried: a response larger
// than the request is refused at start, and with request=100,response=100
// the victim gets nothing for 1,000 one-byte datagrams sent in its name,
// and 100 bytes for each 100-byte one (the size the operator chose, never
// more). On 84d21eb the first was taken and each one-byte datagram
// answered with the response (the test fails there).
func TestNoStandingReflection(t *testing.T) {
	r := newReflection(t, "strefl")
	port := r.freeUDPPort(t)
	data := fmt.Sprintf("udp_rr:%s:%d", reflectDaemon, port)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := childproc.CombinedOutput(r.d.Command(ctx, bin, "serve", "--listen", reflectDaemon+":0", "--data", data+",request=1,response=1000"))
	if err == nil || !strings.Contains(string(out), "would answer a spoofed datagram with more than it carried") {
		t.Errorf("--data %s,request=1,response=1000: %v\n%s", data, err, out)
	}
	p := serveIn(t, r.d, reflectDaemon+":12866", "--data", data+",request=100,response=100")
	idle := readProc(t, p.Pid())
	sent := r.spoof(t, port, ones(1000)...)
	if got := r.settled(); got != 0 {
		t.Errorf("one-byte datagrams: the victim received %d bytes for the %d spoofed", got, sent)
	}
	hundred := make([][]byte, 100)
	for i := range hundred {
		hundred[i] = make([]byte, 100)
	}
	sent = r.spoof(t, port, hundred...)
	if got := r.settled(); got > sent {
		t.Errorf("100-byte datagrams: the victim received %d bytes for the %d spoofed", got, sent)
	}
	r.stillServes(t, p, idle)
}

// TestStandingFromNetworks: an operator who names the networks a standing
// UDP_RR endpoint serves (from=, for netperf -N clients that ask for a
// response larger than their request) gets that response on those
// networks, and nothing leaves for an address outside them: 1,000 one-byte
// datagrams spoofed as the victim (outside 198.18.30.0/24) bring the
// victim nothing, while the attacker's own address, inside it, is
// answered with the 1,000 bytes asked for.
func TestStandingFromNetworks(t *testing.T) {
	r := newReflection(t, "stfrom")
	port := r.freeUDPPort(t)
	serveIn(t, r.d, reflectDaemon+":12866", "--data", fmt.Sprintf("udp_rr:%s:%d,request=1,response=1000,from=198.18.30.0/24", reflectDaemon, port))
	sent := r.spoof(t, port, ones(1000)...)
	if got := r.settled(); got != 0 {
		t.Errorf("spoofed from outside from=: the victim received %d bytes for the %d spoofed", got, sent)
	}
	var answer int
	err := r.a.Do(func() error {
		c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.MustParseAddr(reflectDaemon), uint16(port))))
		if err != nil {
			return err
		}
		defer c.Close()
		buf := make([]byte, 2000)
		for try := 0; try < 20 && answer == 0; try++ { // the endpoint may still be starting
			if _, err := c.Write([]byte{1}); err != nil {
				return err
			}
			c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			answer, _ = c.Read(buf)
		}
		return nil
	})
	if err != nil || answer != 1000 {
		t.Errorf("a client inside from=: answered with %d bytes (%v), want 1000", answer, err)
	}
}

// freeUDPPort is a UDP port the kernel gives on the daemon's address, for
// a standing endpoint the test then opens there.
func (r *reflection) freeUDPPort(t *testing.T) int {
	t.Helper()
	var port int
	if err := r.d.Do(func() error {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(reflectDaemon)})
		if err != nil {
			return err
		}
		port = c.LocalAddr().(*net.UDPAddr).Port
		return c.Close()
	}); err != nil {
		t.Fatal(err)
	}
	return port
}
