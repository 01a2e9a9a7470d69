package server

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/limits"
	"netscript/engine/npwire"
	"netscript/engine/proto"
	"netscript/engine/spec"
)

// npRR is the DO_OMNI request netperf 2.7.1 sends for -t TCP_RR -l 1.
func npRR() *npwire.OmniRequest {
	return &npwire.OmniRequest{SendBufSize: -1, SendSize: 0xffffffff, SendAlign: 8, SendWidth: 1, RequestSize: 1,
		RecvBufSize: -1, RecvSize: 0xffffffff, RecvAlign: 8, RecvWidth: 1, ResponseSize: 1, Flags: npwire.OmniRoutingAllowed,
		TestLength: 1, SendDirty: 0xffffffff, RecvDirty: 0xffffffff, RecvClean: 0xffffffff, IPFamily: npwire.NFInet,
		SocketType: npwire.NSTStream, Protocol: 6, Direction: npwire.DirSend | npwire.DirRecv, SocketPrio: -1, SocketTOS: -1}
}

// npDial opens a control connection to a netperf listener.
func npDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// npAsk sends m and reads the answer.
func npAsk(t *testing.T, c net.Conn, m *npwire.Message) *npwire.Message {
	t.Helper()
	if err := npwire.Write(c, m, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	r, err := npwire.Read(c)
	if err != nil {
		t.Fatalf("answer to %s: %v", npwire.Name(m.Type), err)
	}
	return r
}

// TestNetperfRefusals: malformed, absurd and unsupported requests get an
// error answer netperf prints (netserver's 998 for a request it does not
// know), each is counted, and the connection goes on serving: the next
// request on it is answered.
func TestNetperfRefusals(t *testing.T) {
	h := newNPHarness(t, limits.Default(), false)
	omni := func(f func(r *npwire.OmniRequest)) *npwire.Message {
		r := npRR()
		f(r)
		return r.Message(-1)
	}
	cc := &npwire.TCPCCRequest{RecvBufSize: -1, SendBufSize: -1, RequestSize: 1, ResponseSize: 1, TestLength: 1, IPFamily: npwire.NFInet}
	cases := []struct {
		name  string
		m     *npwire.Message
		errno int32
	}{
		{"huge request", omni(func(r *npwire.OmniRequest) { r.RequestSize = 1<<31 - 1 }), npEINVAL},
		{"empty request", omni(func(r *npwire.OmniRequest) { r.RequestSize = 0 }), npEINVAL},
		{"negative response", omni(func(r *npwire.OmniRequest) { r.ResponseSize = -5 }), npEINVAL},
		{"negative buffer", omni(func(r *npwire.OmniRequest) { r.RecvBufSize = -7 }), npEINVAL},
		{"buffer over --max-buffer", omni(func(r *npwire.OmniRequest) { r.SendBufSize = 1 << 30 }), npEINVAL},
		{"port out of range", omni(func(r *npwire.OmniRequest) { r.DataPort = 70000 }), npEINVAL},
		{"port outside --data-ports", omni(func(r *npwire.OmniRequest) { r.DataPort = 80 }), npEINVAL},
		{"a year's test", omni(func(r *npwire.OmniRequest) { r.TestLength = 365 * 86400 }), npEINVAL},
		{"zero length", omni(func(r *npwire.OmniRequest) { r.TestLength = 0 }), npEINVAL},
		{"unknown family", omni(func(r *npwire.OmniRequest) { r.IPFamily = 99 }), npEAFNOSUPPORT},
		{"SCTP", omni(func(r *npwire.OmniRequest) { r.Protocol = 132 }), npEPROTONOSUPPORT},
		{"UDP from the server", omni(func(r *npwire.OmniRequest) {
			r.Protocol, r.SocketType, r.Direction = 17, npwire.NSTDgram, npwire.DirSend
		}), npEPROTONOSUPPORT},
		{"bad direction", omni(func(r *npwire.OmniRequest) { r.Direction = 0xff }), npEINVAL},
		{"huge stream receive", omni(func(r *npwire.OmniRequest) {
			r.Direction, r.RequestSize, r.ResponseSize, r.RecvSize = npwire.DirRecv, -1, -1, 1<<30
		}), npEINVAL},
		{"no such CPU", func() *npwire.Message { m := npRR().Message(100000); return m }(), npEINVAL},
		{"negative CPU", func() *npwire.Message { m := npRR().Message(-9); return m }(), npEINVAL},
		{"TCP_CC bad port", func() *npwire.Message { r := *cc; r.Port = -1; return r.Message(-1) }(), npEINVAL},
		{"SCTP_STREAM", &npwire.Message{Type: npwire.TypeDoSCTPStream, Word2: -1}, npUnknownRequest},
		{"DLPI", &npwire.Message{Type: npwire.TypeDoDLPICOStream, Word2: -1}, npUnknownRequest},
		{"UNIX domain", &npwire.Message{Type: npwire.TypeDoStreamStream, Word2: -1}, npUnknownRequest},
		{"classic TCP_RR", &npwire.Message{Type: npwire.TypeDoTCPRR, Word2: -1}, npUnknownRequest},
		{"garbage type", &npwire.Message{Type: -12345}, npUnknownRequest},
	}
	c := npDial(t, h.addr4)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := npAsk(t, c, tc.m)
			if r.Word2 != tc.errno {
				t.Errorf("errno %d, want %d", r.Word2, tc.errno)
			}
			if got := h.srv.NetperfStats().Refused; got != uint64(i+1) {
				t.Errorf("%d refusals counted, want %d", got, i+1)
			}
		})
	}
	// The connection still serves.
	if r := npAsk(t, c, &npwire.Message{Type: npwire.TypeDoSysinfo}); r.Type != npwire.TypeSysinfoResponse ||
		r.String(0, 64) != npwire.SysinfoDeprecatedAnswer {
		t.Errorf("DO_SYSINFO answered %s %q", npwire.Name(r.Type), r.String(0, 64))
	}
	r := npAsk(t, c, &npwire.Message{Type: npwire.TypeCPUCalibrate})
	if got := npwire.DecodeCPUCalibrateResponse(r); got.Rate != npCPURate || got.NumCPUs < 1 || r.Type != npwire.TypeCPUCalibrate {
		t.Errorf("CPU_CALIBRATE answered %s %+v", npwire.Name(r.Type), got)
	}
}

// TestNetperfBounds: a netperf test counts against the daemon's bounds on
// tests at once per client and its thread budget, as a native test does.
func TestNetperfBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(l *limits.Limits)
		log  string
	}{
		{"per client", func(l *limits.Limits) { l.MaxTestsPerClient = 1 }, "max-tests-per-client"},
		{"in all", func(l *limits.Limits) { l.MaxTests = 1 }, "max-tests"},
		{"threads", func(l *limits.Limits) { l.MaxThreads = 1 }, "max-threads"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lim := limits.Default()
			c.set(&lim)
			h := newNPHarness(t, lim, false)
			// A test that runs: its response came, its data connection is in.
			first := npDial(t, h.addr4)
			r := npAsk(t, first, npRR().Message(-1))
			if r.Word2 != 0 {
				t.Fatalf("first test refused: errno %d", r.Word2)
			}
			port := npwire.DecodeOmniResponse(r).DataPort
			data, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
			if err != nil {
				t.Fatal(err)
			}
			defer data.Close()
			waitFor(t, func() bool { return h.srv.Load().Running == 1 })
			second := npDial(t, h.addr4)
			if r := npAsk(t, second, npRR().Message(-1)); r.Word2 != npEBUSY {
				t.Errorf("second test answered errno %d, want %d (EBUSY)", r.Word2, npEBUSY)
			}
			if !strings.Contains(h.logBuf.String(), "["+c.log+"]") {
				t.Errorf("the log does not name --%s:\n%s", c.log, h.logBuf.String())
			}
		})
	}
}

// waitFor waits up to 30 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

// TestNetperfHostile: garbage, short messages, silence, clients that
// vanish mid-test (a raw one, and a real netperf killed while it runs), a
// stranger's data connection and a flood of connections from one address
// leave the daemon serving: a following real netperf test exits 0, and the
// daemon is back to no tests and no threads.
func TestNetperfHostile(t *testing.T) {
	peers := peersDir(t)
	lim := limits.Default()
	lim.HandshakeTimeout = time.Second
	lim.MaxPendingPerClient = 4
	h := newNPHarness(t, lim, false)
	st := h.srv.NetperfStats

	// Garbage shorter than a message, then the end of the connection.
	c := npDial(t, h.addr4)
	c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	c.(*net.TCPConn).CloseWrite()
	waitFor(t, func() bool { return st().Dropped >= 1 })

	// 656 random bytes: an unknown request, answered, and the connection goes on.
	var junk [npwire.MessageSize]byte
	rand.Read(junk[:])
	junk[0] = 0x7f // never a real code
	c = npDial(t, h.addr4)
	c.Write(junk[:])
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if r, err := npwire.Read(c); err != nil || r.Word2 != npUnknownRequest {
		t.Errorf("random message answered %v, %v", r, err)
	}
	c.Close()

	// Silence: dropped after the handshake bound.
	silent := npDial(t, h.addr4)
	waitFor(t, func() bool { return st().Dropped >= 2 })
	silent.Close()

	// Cheap requests without end: the connection is closed after
	// npMaxIdleRequests of them in a row.
	c = npDial(t, h.addr4)
	dropped := st().Dropped
	answered := 0
	for ; answered <= npMaxIdleRequests; answered++ {
		if npwire.Write(c, &npwire.Message{Type: npwire.TypeDoSysinfo}, 10*time.Second) != nil {
			break
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := npwire.Read(c); err != nil {
			break
		}
	}
	if answered != npMaxIdleRequests {
		t.Errorf("%d requests that are not tests answered on one connection, want %d", answered, npMaxIdleRequests)
	}
	waitFor(t, func() bool { return st().Dropped > dropped })
	c.Close()

	// More connections from one address than --max-pending-per-client:
	// the extra ones are closed at once.
	var held []net.Conn
	for range lim.MaxPendingPerClient {
		held = append(held, npDial(t, h.addr4))
	}
	extra := npDial(t, h.addr4)
	extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := extra.Read(make([]byte, 1)); n != 0 || err == nil || isTimeout(err) {
		t.Errorf("a connection over --max-pending-per-client read %d, %v; want it closed", n, err)
	}
	for _, c := range held {
		c.Close()
	}
	waitFor(t, func() bool { return h.srv.Load().Pending == 0 })

	// Clients that vanish mid-test: control closed with the data connection
	// open, and both closed.
	for _, closeData := range []bool{false, true} {
		before := st().Vanished
		c := npDial(t, h.addr4)
		r := npAsk(t, c, npRR().Message(-1))
		port := npwire.DecodeOmniResponse(r).DataPort
		data, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
		if err != nil {
			t.Fatal(err)
		}
		data.Write([]byte{1, 2, 3})
		if closeData {
			data.Close()
		} else {
			defer data.Close()
		}
		c.Close()
		if closeData {
			// The data connection's end may be seen first, as netperf's
			// end of the test: then the results go to a closed peer.
			waitFor(t, func() bool { l := h.srv.Load(); return l.Running == 0 && l.Pending == 0 })
		} else {
			waitFor(t, func() bool { return st().Vanished > before })
		}
	}

	// A real netperf killed in the middle of a long test. Its data
	// connection's end is, in netperf's protocol, the end of a TCP_STREAM,
	// and the results written to its dead control connection may leave
	// before the kernel hears of its end: the test is counted vanished or
	// done, as netserver could not tell either, and then nothing is held.
	before, doneBefore := st().Vanished, st().Tests
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(peers, "netperf"), append(hostPort(h.addr4), "-t", "TCP_STREAM", "-l", "60")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return h.srv.Load().Running == 1 })
	cmd.Process.Kill()
	cmd.Wait()
	waitFor(t, func() bool { s := st(); return s.Vanished > before || s.Tests > doneBefore })
	waitFor(t, func() bool { l := h.srv.Load(); return l.Running == 0 && l.Pending == 0 })

	// A stranger's data connection: a test whose client is another
	// address takes no connection from this one.
	w := spec.TCPRR
	setup := &proto.Setup{Test: w.Netperf, Request: 1, Response: 1}
	tst, err := h.srv.newTest(w, setup, netip.MustParseAddr("127.0.0.1"), guard{client: netip.MustParseAddr("198.18.0.9"), netperf: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(tst.port)))
	if err != nil {
		t.Fatal(err)
	}
	d.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := d.Read(make([]byte, 1)); n != 0 || err == nil || isTimeout(err) {
		t.Errorf("a stranger's data connection read %d, %v; want it closed", n, err)
	}
	d.Close()
	if got := tst.strangers.Load(); got != 1 {
		t.Errorf("%d strangers counted, want 1", got)
	}
	if err := tst.start(time.Now().Add(100 * time.Millisecond)); err == nil {
		t.Error("the test started on a stranger's connection")
	}
	tst.close()

	// The daemon still serves a real netperf, and holds nothing after.
	out := runNetperf(t, peers, append(hostPort(h.addr4), "-t", "TCP_RR", "-l", "1")...)
	if !strings.Contains(out, "TCP REQUEST/RESPONSE TEST") {
		t.Errorf("netperf after the hostile peers:\n%s", out)
	}
	waitFor(t, func() bool { l := h.srv.Load(); return l.Running == 0 && l.Threads == 0 && l.Pending == 0 })
	t.Logf("netperf stats: %+v", st())
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestNetperfTimer: a timed TCP_CRR ends by the server's timer, the test's
// length and netserver's pad (netperf sends no end-of-test signal), and
// the results count every transaction with the pad taken off the elapsed
// time, as netserver reports it.
func TestNetperfTimer(t *testing.T) {
	h := newNPHarness(t, limits.Default(), false)
	c := npDial(t, h.addr4)
	req := npRR()
	req.Flags |= npwire.OmniConnectTest
	r := npAsk(t, c, req.Message(-1))
	if r.Word2 != 0 {
		t.Fatalf("refused: errno %d", r.Word2)
	}
	data := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(npwire.DecodeOmniResponse(r).DataPort)))
	const n = 5
	for range n {
		d, err := net.Dial("tcp", data)
		if err != nil {
			t.Fatal(err)
		}
		d.Write([]byte{'x'})
		d.SetReadDeadline(time.Now().Add(30 * time.Second))
		b, err := io.ReadAll(d)
		d.Close()
		if err != nil || len(b) != 1 {
			t.Fatalf("response %q, %v", b, err)
		}
	}
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	m, err := npwire.Read(c)
	if err != nil {
		t.Fatal(err)
	}
	res := npwire.DecodeOmniResults(m)
	if m.Type != npwire.TypeOmniResults || res.TransReceived != n || res.BytesReceived != n || res.BytesSent != n {
		t.Errorf("results %s: %+v", npwire.Name(m.Type), res)
	}
	// The timer ran the length and the pad; the pad is not in the elapsed
	// time (a late timer on a loaded machine adds to it, a little).
	if res.ElapsedTime <= 0 || res.ElapsedTime >= npwire.PadTime {
		t.Errorf("elapsed %v s: the pad of %d s is in it", res.ElapsedTime, npwire.PadTime)
	}
}
