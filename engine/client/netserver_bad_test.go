package client_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/client/netservertest"
	"netscript/engine/npwire"
	"netscript/engine/sock/socktest"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// npFail runs s and returns its error, failing t if it succeeded or took
// far longer than its connect timeout (a hang).
func npFail(t *testing.T, s spec.Spec) string {
	t.Helper()
	t0 := time.Now()
	_, err := client.Run(context.Background(), s, client.Options{})
	if err == nil {
		t.Fatalf("%s against a far end that is not a netserver: no error", s.Workload.Name)
	}
	if d := time.Since(t0); d > s.ConnectTimeout+20*time.Second {
		t.Errorf("the error took %v (connect_timeout %v): %v", d, s.ConnectTimeout, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error of more than one line: %q", err)
	}
	return err.Error()
}

// fakeFarEnd listens on 127.0.0.1 and serves each connection with serve.
func fakeFarEnd(t *testing.T, serve func(c net.Conn)) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// TestNetserverNotNetserver: server="netserver" aimed at something else
// says in one line what answered, within the connect timeout.
func TestNetserverNotNetserver(t *testing.T) {
	daemon := startServer(t, &workload.Threads{})
	web := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(web.Close)
	webPort := web.Listener.Addr().(*net.TCPAddr).Port
	silent := fakeFarEnd(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	nothing := fakeFarEnd(t, func(net.Conn) {})
	short := fakeFarEnd(t, func(c net.Conn) {
		io.ReadFull(c, make([]byte, npwire.MessageSize))
		c.Write(make([]byte, 100)) // a netserver whose messages are shorter
		io.Copy(io.Discard, c)
	})
	preOmni := fakeFarEnd(t, func(c net.Conn) {
		// A netserver that knows neither DO_SYSINFO nor DO_OMNI answers
		// each with errno 998 (netserver.c's default case).
		for {
			m, err := npwire.Read(c)
			if err != nil {
				return
			}
			r := &npwire.Message{Type: m.Type, Word2: npwire.UnknownRequest}
			if _, err := c.Write(r.Bytes()); err != nil {
				return
			}
		}
	})
	refused := socktest.Reserve(t, false) // held, not listening: refused
	for _, c := range []struct {
		name string
		port int
		want string
	}{
		{"netscript daemon", int(daemon.Port()), "netscript daemon"},
		{"HTTP server", webPort, "HTTP server"},
		{"silent listener", silent, "silent listener"},
		{"closes at once", nothing, "the connection without an answer"}, // closed, or reset
		{"nothing listening", refused, "nothing listens"},
		{"short messages", short, "answered 100 bytes"},
		{"pre-omni netserver", preOmni, "does not know DO_OMNI (errno 998)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := npSpec(spec.TCPRR, "127.0.0.1", c.port)
			// Generous: an HTTP server is asked with HEAD only after
			// three quarters of it, and must answer in the rest on a
			// loaded machine.
			s.ConnectTimeout = 4 * time.Second
			msg := npFail(t, s)
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, fmt.Sprint(c.port)) {
				t.Errorf("error %q: want it to say %q about port %d", msg, c.want, c.port)
			}
		})
	}
}

// TestNetserverRefusedOptions: what netserver cannot do is refused by
// name before any traffic.
func TestNetserverRefusedOptions(t *testing.T) {
	for _, c := range []struct {
		mod  func(s *spec.Spec)
		want string
	}{
		{func(s *spec.Spec) { s.Client = "127.0.0.1" }, "against a netserver: option client is not supported by netserver"},
		{func(s *spec.Spec) { s.NoControl, s.DataPort = true, 9 }, "against a netserver: option control is not supported by netserver"},
		{func(s *spec.Spec) { *s = npSpec(spec.TCPMaerts, "127.0.0.1", 9); s.Rate = 10 }, "option rate is not supported by netserver"},
		{func(s *spec.Spec) { s.Duration, s.Transactions = 0, 1<<32 }, "option transactions is not supported by netserver"},
		{func(s *spec.Spec) { s.Host = "" }, "host: a test against a netserver needs host"},
		{func(s *spec.Spec) { s.Flows, s.DataPort = 2, 5000 }, "data_port: against a netserver each flow has a netserver of its own"},
		{func(s *spec.Spec) { s.Server = "netperf" }, `server: want "netscript" or "netserver"`},
	} {
		s := npSpec(spec.TCPRR, "127.0.0.1", 9) // nothing is ever sent there
		c.mod(&s)
		_, err := client.Run(context.Background(), s, client.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestNetserverUnknownRequest: a real netserver answers a request it does
// not know with errno 998, which is how an older one answers DO_OMNI.
func TestNetserverUnknownRequest(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write((&npwire.Message{Type: 12345, Word2: -1}).Bytes()); err != nil {
		t.Fatal(err)
	}
	m, err := npwire.ReadAnswer(c, "netserver", time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	err = npwire.CheckResponse(m, npwire.TypeDoOmni, npwire.TypeOmniResponse)
	if err == nil || !strings.Contains(err.Error(), "errno 998") {
		t.Errorf("netserver's answer to an unknown request (type %d, errno %d): %v", m.Type, m.Word2, err)
	}
}

// TestNetserverSerial: a netserver started with -f serves one control
// connection at a time, so the second flow of a test gets no answer, and
// the error says why that may be.
func TestNetserverSerial(t *testing.T) {
	port := netservertest.StartSerial(t, "127.0.0.1")
	s := npSpec(spec.TCPRR, "127.0.0.1", port)
	s.Flows, s.ConnectTimeout = 2, time.Second
	msg := npFail(t, s)
	if !strings.Contains(msg, "flow 1 of 2") || !strings.Contains(msg, "started with -f") {
		t.Errorf("error %q: want it to name flow 1 and netserver's -f", msg)
	}
}

// TestNetserverSysinfo: netserver 2.7.1 answers DO_SYSINFO with its
// comma list, every field "Deprecated"; a test's note says so.
func TestNetserverSysinfo(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(npwire.SysinfoRequest().Bytes()); err != nil {
		t.Fatal(err)
	}
	m, err := npwire.ReadAnswer(c, "netserver", time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	si, err := npwire.DecodeSysinfo(m)
	if err != nil || !si.Deprecated() {
		t.Errorf("DO_SYSINFO: %+v, %v", si, err)
	}
	s := npSpec(spec.TCPRR, "127.0.0.1", port)
	s.Duration, s.Transactions = 0, 10
	res := npRun(t, s)
	if res.ServerEnv != nil || !hasNote(res, "DO_SYSINFO tells nothing") {
		t.Errorf("server env %+v, notes %q", res.ServerEnv, res.Notes)
	}
}

// TestNetserverVanishesBeforeResults: a far end that answers as a
// netserver, serves the data, and closes the control connection instead of
// sending its results is told as a netserver that went away (one line,
// with what was measured), not as a far end that is no netserver.
func TestNetserverVanishesBeforeResults(t *testing.T) {
	data, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	ended := make(chan struct{}, 1) // the data connection reached EOF
	go func() {
		for {
			c, err := data.Accept()
			if err != nil {
				return
			}
			go func() { // an echo of one-byte transactions until EOF
				defer func() { ended <- struct{}{} }()
				defer c.Close()
				b := make([]byte, 1)
				for {
					if _, err := io.ReadFull(c, b); err != nil {
						return
					}
					if _, err := c.Write(b); err != nil {
						return
					}
				}
			}()
		}
	}()
	port := fakeFarEnd(t, func(c net.Conn) {
		for {
			m, err := npwire.Read(c)
			if err != nil {
				return
			}
			switch m.Type {
			case npwire.TypeDoSysinfo:
				c.Write((&npwire.SysinfoResponse{Fields: []string{"Deprecated", "Deprecated", "Deprecated", "Deprecated"}}).Message().Bytes())
			case npwire.TypeDoOmni:
				rsp := &npwire.OmniResponse{RecvBufSize: 131072, SendBufSize: 16384, RecvSize: 1, SendSize: 1,
					DataPort: uint32(data.Addr().(*net.TCPAddr).Port)}
				c.Write(rsp.Message(0).Bytes())
				// The data runs; then this "netserver" dies before its results.
				<-ended
				return
			}
		}
	})
	s := npSpec(spec.TCPRR, "127.0.0.1", port)
	s.Duration, s.Transactions = 0, 200
	msg := npFail(t, s)
	for _, want := range []string{"closed the control connection before its results", "200 transactions"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q: want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, "not a netserver") {
		t.Errorf("error %q blames the far end's identity after it answered as a netserver", msg)
	}
}
