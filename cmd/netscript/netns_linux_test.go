package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/netns"
)

// These tests run `netscript serve` in one network namespace and a client
// in another, joined by veth pairs with addresses in 198.18.0.0/15, and
// check what netscript reports against the namespaces' own kernel counters.

// serveIn starts `netscript serve` in ns on addr, with any further flags,
// and waits until it listens.
func serveIn(t *testing.T, ns *netns.NS, addr string, flags ...string) *netns.Proc {
	t.Helper()
	p := ns.Start(t, bin, append([]string{"serve", "--quiet", "--listen", addr}, flags...)...)
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ns.Do(func() error {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
		if err == nil {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("netscript serve in %s did not listen on %s: %v\n%s", ns, addr, err, p.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clientIn runs `netscript -c code` in ns and returns its stdout and stderr;
// the script must succeed.
func clientIn(t *testing.T, ns *netns.NS, code string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := ns.Command(ctx, bin, "-c", code)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := childproc.Run(cmd); err != nil {
		t.Fatalf("netscript -c in %s: %v\nstdout:\n%s\nstderr:\n%s", ns, err, o.String(), e.String())
	}
	return o.String(), e.String()
}

// delta is how much counter k grew between two readings.
func delta(before, after map[string]uint64, k string) int64 {
	return int64(after[k]) - int64(before[k])
}

// TestFastOpenInNamespaces answers the seed thread's question with the
// kernel as witness: with the server namespace's net.ipv4.tcp_fastopen=3
// nearly every connection after the first carries its request in the SYN;
// with =1 none does, the result says why and a warning goes to stderr. The
// counts netscript reports match the namespaces' TcpExt counters.
func TestFastOpenInNamespaces(t *testing.T) {
	const key = "net.ipv4.tcp_fastopen"
	for _, c := range []struct {
		server string
		works  bool
	}{{"3", true}, {"1", false}} {
		t.Run("server "+key+"="+c.server, func(t *testing.T) {
			cli, srv := netns.New(t, "tfo-cli"), netns.New(t, "tfo-srv")
			netns.Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
			srv.Sysctl(t, key, c.server)
			cli.Sysctl(t, key, "1")
			serveIn(t, srv, "198.18.0.2:12866")

			s0, c0 := srv.Counters(t), cli.Counters(t)
			out, errOut := clientIn(t, cli, `r = tcp_crr(host="198.18.0.2", transactions=500, fastopen=True)
print(json.encode(r.to_dict()))`)
			s1, c1 := srv.Counters(t), cli.Counters(t)
			var r struct {
				Transactions uint64
				Errors       map[string]uint64
				FastOpen     struct {
					Attempted      uint64
					Accepted       uint64
					CookieRequests uint64 `json:"cookie_requests"`
					Fallbacks      uint64
					SynRetransmits uint64 `json:"syn_retransmits"`
					Unknown        uint64
					ServerAccepted uint64 `json:"server_accepted"`
					ServerSysctl   int    `json:"server_sysctl"`
					ClientSysctl   int    `json:"client_sysctl"`
					Note           string
				}
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v in %s", err, out)
			}
			f := r.FastOpen
			t.Logf("netscript: %+v, errors %v", f, r.Errors)
			t.Logf("client Active %d, server Passive %d, server CookieReqd %d, client CookieReqd %d",
				delta(c0, c1, "TcpExtTCPFastOpenActive"), delta(s0, s1, "TcpExtTCPFastOpenPassive"),
				delta(s0, s1, "TcpExtTCPFastOpenCookieReqd"), delta(c0, c1, "TcpExtTCPFastOpenCookieReqd"))
			// A loaded machine may fail a connection now and then; each
			// failed one is an error and was still an attempt.
			var failed uint64
			for _, n := range r.Errors {
				failed += n
			}
			if r.Transactions != 500 || f.Attempted != 500+failed {
				t.Fatalf("%d transactions, %d attempted, %d failed (%v); want 500 and 500 + failed", r.Transactions, f.Attempted, failed, r.Errors)
			}
			if f.Accepted+f.CookieRequests+f.Fallbacks+f.SynRetransmits+f.Unknown != f.Attempted {
				t.Errorf("the kinds of connection do not add up: %+v", f)
			}
			// What each end saw per connection is what its kernel counted.
			if got := delta(c0, c1, "TcpExtTCPFastOpenActive"); got != int64(f.Accepted) {
				t.Errorf("client: accepted %d, TcpExtTCPFastOpenActive grew by %d", f.Accepted, got)
			}
			if got := delta(s0, s1, "TcpExtTCPFastOpenPassive"); got != int64(f.ServerAccepted) {
				t.Errorf("server: accepted %d, TcpExtTCPFastOpenPassive grew by %d", f.ServerAccepted, got)
			}
			if got := delta(c0, c1, "TcpExtTCPFastOpenActiveFail"); got != int64(f.Fallbacks) {
				t.Errorf("client: %d fallbacks, TcpExtTCPFastOpenActiveFail grew by %d", f.Fallbacks, got)
			}
			if f.ServerSysctl != map[bool]int{true: 3, false: 1}[c.works] || f.ClientSysctl != 1 {
				t.Errorf("sysctls reported: server %d, client %d", f.ServerSysctl, f.ClientSysctl)
			}
			// The server's kernel counts the SYNs that asked for a cookie,
			// whether or not it then gives one.
			if got := delta(s0, s1, "TcpExtTCPFastOpenCookieReqd"); got != int64(f.CookieRequests) {
				t.Errorf("client: %d cookie requests, the server's TcpExtTCPFastOpenCookieReqd grew by %d", f.CookieRequests, got)
			}
			if c.works {
				if f.Accepted < 495 || f.ServerAccepted != f.Accepted || f.CookieRequests < 1 {
					t.Errorf("with the server bit, %d of 500 accepted (server %d), %d cookie requests", f.Accepted, f.ServerAccepted, f.CookieRequests)
				}
				if f.Note != "" || errOut != "" {
					t.Errorf("a note or warning although Fast Open worked: %q, stderr %q", f.Note, errOut)
				}
				return
			}
			if f.Accepted != 0 || f.ServerAccepted != 0 || f.CookieRequests != 500 {
				t.Errorf("without the server bit: %d accepted, server %d, %d cookie requests of 500", f.Accepted, f.ServerAccepted, f.CookieRequests)
			}
			want := "does not accept TCP Fast Open: its net.ipv4.tcp_fastopen is 1, without the server bit (2)"
			if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(f.Note) {
				t.Errorf("note %q lacks %q", f.Note, want)
			}
			if !regexp.MustCompile(`^netscript: warning: tcp_crr: fastopen: .*` + regexp.QuoteMeta(want)).MatchString(errOut) {
				t.Errorf("stderr %q lacks the warning", errOut)
			}
		})
	}
}

// tcDropped reads the drop count of the root qdisc of dev in ns.
func tcDropped(t *testing.T, ns *netns.NS, dev string) int64 {
	t.Helper()
	out := ns.Run(t, "tc", "-s", "qdisc", "show", "dev", dev)
	m := regexp.MustCompile(`dropped (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no drop count in tc's output:\n%s", out)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// udpResult is the part of a UDP_STREAM result these tests read.
type udpResult struct {
	BytesSent uint64 `json:"bytes_sent"`
	UDP       struct {
		Sent     int64
		Received int64
		Lost     int64
		LossPct  float64 `json:"loss_pct"`
		Refused  int64
	}
	Remote struct {
		RecvCalls int64 `json:"recv_calls"`
	}
}

// A UDP flow's greeting, one way, in datagrams: its Hello and its Confirm
// (each answered), and retries of either if an answer was late.
const greetMin, greetMax = 2, 10

// udpClient runs a UDP_STREAM from ns with the options in opts.
func udpClient(t *testing.T, ns *netns.NS, opts string) udpResult {
	t.Helper()
	out, _ := clientIn(t, ns, `r = udp_stream(`+opts+`)
print(json.encode(r.to_dict()))`)
	var r udpResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	t.Logf("udp %+v, server datagrams %d", r.UDP, r.Remote.RecvCalls)
	if r.UDP.Sent != r.UDP.Received+r.UDP.Lost || r.UDP.Received != r.Remote.RecvCalls {
		t.Errorf("sent %d != received %d + lost %d, or the server's %d", r.UDP.Sent, r.UDP.Received, r.UDP.Lost, r.Remote.RecvCalls)
	}
	return r
}

// TestUDPLossInNamespaces makes loss real: the client's datagrams cross a
// router namespace whose link to the server is a 20 Mbit/s tbf, which drops
// what it cannot carry. netscript's sent, received and lost are checked
// against the client's UdpOutDatagrams, the server's UdpInDatagrams and the
// tbf's own drop count. A second run puts the tbf on the client's own link:
// with IP_RECVERR those drops fail the send with ENOBUFS and are counted as
// refused, not as sent and lost.
func TestUDPLossInNamespaces(t *testing.T) {
	cli, rtr, srv := netns.New(t, "udp-cli"), netns.New(t, "udp-rtr"), netns.New(t, "udp-srv")
	in := netns.Link(t, cli, rtr, "198.18.1.1/24", "198.18.1.2/24")
	out := netns.Link(t, rtr, srv, "198.18.2.1/24", "198.18.2.2/24")
	rtr.Sysctl(t, "net.ipv4.ip_forward", "1")
	cli.AddRoute(t, "198.18.2.0/24", "", "198.18.1.2")
	srv.AddRoute(t, "198.18.1.0/24", "", "198.18.2.1")
	serveIn(t, srv, "198.18.2.2:12866")
	opts := `host="198.18.2.2", duration=1, send_size=1000`

	t.Run("lost on the way", func(t *testing.T) {
		rtr.Run(t, "tc", "qdisc", "add", "dev", out.DevA, "root", "tbf", "rate", "20mbit", "burst", "16kb", "latency", "20ms")
		defer rtr.Run(t, "tc", "qdisc", "del", "dev", out.DevA, "root")
		c0, s0, d0 := cli.Counters(t), srv.Counters(t), tcDropped(t, rtr, out.DevA)
		r := udpClient(t, cli, opts)
		c1, s1, d1 := cli.Counters(t), srv.Counters(t), tcDropped(t, rtr, out.DevA)
		u := r.UDP
		if u.Lost <= 0 || u.Refused != 0 || u.LossPct <= 0 {
			t.Fatalf("a 20 Mbit/s bottleneck lost nothing: %+v", u)
		}
		// The client also sent its end-of-test markers (three datagrams)
		// and, before the data, its greeting (tiny, first through the tbf:
		// none is dropped).
		const markers = 3
		greet := delta(c0, c1, "UdpOutDatagrams") - u.Sent - markers
		if greet < greetMin || greet > greetMax {
			t.Errorf("client: sent %d + %d markers, UdpOutDatagrams grew by %d", u.Sent, markers, greet+u.Sent+markers)
		}
		inDgrams, rcvbuf := delta(s0, s1, "UdpInDatagrams"), delta(s0, s1, "UdpRcvbufErrors")
		markersIn := inDgrams - u.Received - greet
		if markersIn < 0 || markersIn > markers {
			t.Errorf("server: received %d, UdpInDatagrams grew by %d", u.Received, inDgrams)
		}
		// Every datagram either reached the server, was dropped by the
		// tbf, or overflowed the server's socket buffer.
		dropped := d1 - d0
		if want := dropped + rcvbuf - (markers - markersIn); u.Lost != want {
			t.Errorf("lost %d, but the tbf dropped %d and the server's buffer %d (%d markers arrived)", u.Lost, dropped, rcvbuf, markersIn)
		}
	})
	t.Run("refused at the source", func(t *testing.T) {
		cli.Run(t, "tc", "qdisc", "add", "dev", in.DevA, "root", "tbf", "rate", "20mbit", "burst", "16kb", "latency", "20ms")
		defer cli.Run(t, "tc", "qdisc", "del", "dev", in.DevA, "root")
		c0, s0, d0 := cli.Counters(t), srv.Counters(t), tcDropped(t, cli, in.DevA)
		r := udpClient(t, cli, opts)
		c1, s1, d1 := cli.Counters(t), srv.Counters(t), tcDropped(t, cli, in.DevA)
		u := r.UDP
		if u.Refused <= 0 {
			t.Fatalf("the local tbf refused nothing: %+v", u)
		}
		// A refused send is not sent: the kernel did not count it either,
		// and the tbf's drops are exactly the refusals (and any refused
		// markers).
		out := delta(c0, c1, "UdpOutDatagrams")
		if out < u.Sent+greetMin || out > u.Sent+3+greetMax { // and the greeting, which went first
			t.Errorf("client: sent %d, UdpOutDatagrams grew by %d", u.Sent, out)
		}
		if dropped := d1 - d0; dropped < u.Refused || dropped > u.Refused+3 {
			t.Errorf("refused %d, the tbf dropped %d", u.Refused, dropped)
		}
		// With the drops refused at the source, a datagram can only be lost
		// by overflowing the server's socket buffer (a starved receiver on
		// a loaded machine), and the server's kernel counts each one.
		if rcvbuf := delta(s0, s1, "UdpRcvbufErrors"); u.Lost > rcvbuf {
			t.Errorf("with the drops refused at the source, %d of %d were lost, but the server's buffer overflowed only %d times", u.Lost, u.Sent, rcvbuf)
		}
	})
}
