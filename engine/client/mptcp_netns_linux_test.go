package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/client"
	"netscript/engine/netns"
	"netscript/engine/result"
	"netscript/engine/server"
	"netscript/engine/spec"
)

// mptcpChildEnv tells this test binary, run again in a namespace, to be
// the server ("server") or the client ("client:ADDR:PORT") of an MPTCP
// test (TestMPTCPChild).
const mptcpChildEnv = "NETSCRIPT_MPTCP_CHILD"

// mptcpPair is a client and a server namespace joined by two veth pairs,
// 198.18.1.0/24 and 198.18.2.0/24; the server announces its second
// address (ip mptcp endpoint ... signal) and both ends allow two
// subflows, so an MPTCP connection to the first address gets a second
// subflow over the second link.
func mptcpPair(t *testing.T) (cl, sv *netns.NS, links [2]*netns.Veth) {
	netns.Available(t)
	cl, sv = netns.New(t, "mpcl"), netns.New(t, "mpsv")
	links[0] = netns.Link(t, cl, sv, "198.18.1.1/24", "198.18.1.2/24")
	links[1] = netns.Link(t, cl, sv, "198.18.2.1/24", "198.18.2.2/24")
	if v := strings.TrimSpace(cl.ReadSysctl(t, "net.mptcp.enabled")); v != "1" {
		t.Skipf("this kernel has no MPTCP (net.mptcp.enabled: %q)", v)
	}
	for _, ns := range []*netns.NS{cl, sv} {
		ns.Run(t, "ip", "mptcp", "limits", "set", "subflow", "2", "add_addr_accepted", "2")
	}
	sv.Run(t, "ip", "mptcp", "endpoint", "add", "198.18.2.2", "dev", links[1].DevB, "signal")
	return cl, sv, links
}

// startMPTCPServer starts a netscript server in sv, listening on
// 198.18.1.2, and returns its control address.
func startMPTCPServer(t *testing.T, sv *netns.NS) string {
	t.Setenv(mptcpChildEnv, "server")
	p := sv.Start(t, os.Args[0], "-test.run=^TestMPTCPChild$", "-test.timeout=5m")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, addr, ok := strings.Cut(p.Output(), "LISTEN "); ok {
			return strings.Fields(addr)[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server in %s did not start: %s", sv, p.Output())
	return ""
}

// runMPTCPClient runs a tcp_stream with protocol="mptcp" from cl to
// addr and returns its result, or the error it printed.
func runMPTCPClient(t *testing.T, cl *netns.NS, addr string) (*result.Result, string) {
	t.Setenv(mptcpChildEnv, "client:"+addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, _ := childproc.CombinedOutput(cl.Command(ctx, os.Args[0], "-test.run=^TestMPTCPChild$", "-test.v"))
	if _, js, ok := strings.Cut(string(out), "RESULT "); ok {
		var r result.Result
		if err := json.Unmarshal([]byte(strings.SplitN(js, "\n", 2)[0]), &r); err != nil {
			t.Fatalf("the client's result: %v", err)
		}
		return &r, ""
	}
	if _, msg, ok := strings.Cut(string(out), "ERROR "); ok {
		return nil, strings.SplitN(msg, "\n", 2)[0]
	}
	t.Fatalf("the client in %s said neither: %s", cl, out)
	return nil, ""
}

// txBytes is what dev in ns has sent.
func txBytes(t *testing.T, ns *netns.NS, dev string) uint64 {
	var links []struct {
		Stats struct {
			TX struct {
				Bytes uint64 `json:"bytes"`
			} `json:"tx"`
		} `json:"stats64"`
	}
	out := ns.Run(t, "ip", "-j", "-s", "link", "show", "dev", dev)
	if err := json.Unmarshal([]byte(out), &links); err != nil || len(links) != 1 {
		t.Fatalf("ip -s link of %s in %s: %v: %s", dev, ns, err, out)
	}
	return links[0].Stats.TX.Bytes
}

// TestMPTCP: a tcp_stream with protocol="mptcp" between two namespaces
// joined by two links reports each connection's 2 subflows and each
// subflow's TCP_INFO, and its data crosses both links (ip -s link).
func TestMPTCP(t *testing.T) {
	cl, sv, links := mptcpPair(t)
	addr := startMPTCPServer(t, sv)
	var before [2]uint64
	for i, l := range links {
		before[i] = txBytes(t, cl, l.DevA)
	}
	r, msg := runMPTCPClient(t, cl, addr)
	if r == nil {
		t.Fatalf("the MPTCP test failed: %s", msg)
	}
	m := r.MPTCP
	if m == nil || m.Connections != 1 || m.Subflows != 2 || m.Fallbacks != 0 || len(m.Subflow) != 2 {
		t.Fatalf("mptcp: %+v", m)
	}
	for i, sf := range m.Subflow {
		if sf == nil || sf.MSS == 0 || sf.BusyTime == 0 {
			t.Errorf("subflow %d: TCP_INFO %+v", i, sf)
		}
	}
	if r.Config.Protocol != "mptcp" || r.Flows[0].MPTCP == nil || r.Flows[0].MPTCP.Subflows != 2 {
		t.Errorf("config.protocol %q, flow's mptcp %+v", r.Config.Protocol, r.Flows[0].MPTCP)
	}
	if r.BytesSent == 0 || r.BytesSent != r.Remote.BytesReceived {
		t.Errorf("sent %d, the server read %d", r.BytesSent, r.Remote.BytesReceived)
	}
	// Each link carried a good part of the data, not only the
	// handshakes and acknowledgements.
	for i, l := range links {
		moved := txBytes(t, cl, l.DevA) - before[i]
		if moved < r.BytesSent/20 {
			t.Errorf("link %d (%s) sent %d bytes of the test's %d", i, l.DevA, moved, r.BytesSent)
		}
	}
}

// TestMPTCPOff: a kernel with MPTCP turned off, on either end, refuses
// the test with one line that names the option, the end and the sysctl.
func TestMPTCPOff(t *testing.T) {
	cl, sv, _ := mptcpPair(t)
	addr := startMPTCPServer(t, sv)
	for _, c := range []struct {
		off  *netns.NS
		want string
	}{
		{sv, "protocol: server: the server's kernel has MPTCP turned off: net.mptcp.enabled is 0 (sysctl -w net.mptcp.enabled=1)"},
		{cl, "protocol: the client's kernel has MPTCP turned off: net.mptcp.enabled is 0 (sysctl -w net.mptcp.enabled=1)"},
	} {
		c.off.Sysctl(t, "net.mptcp.enabled", "0")
		r, msg := runMPTCPClient(t, cl, addr)
		if r != nil || msg != c.want {
			t.Errorf("MPTCP off in %s: got %q (result %v), want %q", c.off, msg, r != nil, c.want)
		}
		c.off.Sysctl(t, "net.mptcp.enabled", "1")
	}
}

// TestMPTCPChild is the server or the client of TestMPTCP, run again in
// a namespace; it does nothing when run as a test of its own.
func TestMPTCPChild(t *testing.T) {
	role := os.Getenv(mptcpChildEnv)
	switch {
	case role == "server":
		srv := server.New(server.Config{Version: "test"})
		a, err := srv.Listen("198.18.1.2:0")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("LISTEN %s\n", a)
		select {} // until killed
	case strings.HasPrefix(role, "client:"):
		addr := strings.TrimPrefix(role, "client:")
		host, port, _ := strings.Cut(addr, ":")
		s := spec.Default(spec.TCPStream)
		s.Host, s.Protocol, s.Duration = host, spec.ProtocolMPTCP, 2*time.Second
		fmt.Sscan(port, &s.Port)
		r, err := client.Run(context.Background(), s, client.Options{})
		if err != nil {
			fmt.Printf("ERROR %v\n", err)
			return
		}
		b, _ := json.Marshal(r)
		fmt.Printf("RESULT %s\n", b)
	default:
		t.Skip("the server or client of TestMPTCP")
	}
}
