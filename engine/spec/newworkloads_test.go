package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewCodes: the codes of the workloads of issue 32 are theirs for good.
func TestNewCodes(t *testing.T) {
	for code, name := range map[int]string{8: "TCP_BIDIR", 9: "TCP_SENDFILE", 10: "UNIX_RR", 11: "UNIX_CRR", 12: "UNIX_STREAM",
		13: "UNIXGRAM_RR", 14: "UNIXGRAM_STREAM"} {
		if w, err := WorkloadByCode(code); err != nil || w.Netperf != name {
			t.Errorf("code %d is %v (%v), want %s", code, w, err, name)
		}
	}
}

// TestNetperfAs: netperf's names of the UNIX domain tests find them.
func TestNetperfAs(t *testing.T) {
	for name, want := range map[string]*Workload{"STREAM_RR": UnixRR, "stream_stream": UnixStream, "DG_RR": UnixgramRR,
		"DG_STREAM": UnixgramStream, "TCP_SENDFILE": TCPSendfile} {
		if w, err := LookupWorkload(name); err != nil || w != want {
			t.Errorf("LookupWorkload(%q) = %v, %v; want %v", name, w, err, want)
		}
	}
}

// TestBadInputOfNewWorkloads: each bad input is refused with one line that
// names its option and says what is wrong.
func TestBadInputOfNewWorkloads(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		w    *Workload
		set  func(s *Spec)
		opt  string
		want string
	}{
		{TCPBidir, func(s *Spec) { s.Connections = 3 }, OptConnections, "connections: want 1 (one connection per flow, both ends sending on it) or 2 (one per direction), got 3"},
		{UDPRR, func(s *Spec) { s.Protocol = ProtocolMPTCP }, OptProtocol, "protocol: does not apply to udp_rr: it applies only to tcp_rr, tcp_crr, tcp_stream, tcp_maerts, tcp_cc, tcp_bidir and tcp_sendfile, which run over TCP (or MPTCP)"},
		{UnixRR, func(s *Spec) { s.Protocol = ProtocolMPTCP }, OptProtocol, "protocol: does not apply to unix_rr"},
		{TCPRR, func(s *Spec) { s.Protocol = "sctp" }, OptProtocol, `protocol: want "tcp" or "mptcp", got "sctp"`},
		{TCPSendfile, func(s *Spec) { s.File = filepath.Join(dir, "nope") }, OptFile, "file: cannot read " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{TCPSendfile, func(s *Spec) { s.File = empty }, OptFile, "file: " + empty + " is empty"},
		{TCPSendfile, func(s *Spec) { s.File = dir }, OptFile, "is not a regular file"},
		{TCPStream, func(s *Spec) { s.File = empty }, OptFile, "file: does not apply to tcp_stream: it applies only to tcp_sendfile"},
		{UnixStream, func(s *Spec) { s.Local = "127.0.0.1" }, "local", "local: does not apply to unix_stream: a UNIX domain socket has a name"},
		{UnixgramRR, func(s *Spec) { s.DataPort = 9000 }, "data_port", "data_port: does not apply to unixgram_rr"},
		{UnixRR, func(s *Spec) { s.NoControl, s.DataPort = true, 0 }, "control", "control: unix_rr needs a control connection"},
		{TCPBidir, func(s *Spec) { s.NoControl, s.DataPort = true, 9 }, "control", "control: tcp_bidir needs a control connection"},
		{TCPRR, func(s *Spec) { s.NoControl, s.DataPort, s.Protocol = true, 9, ProtocolMPTCP }, OptProtocol, "protocol: needs a control connection"},
		{UnixRR, func(s *Spec) { s.Burst, s.NoDelay = 1, true }, OptNoDelay, "nodelay: does not apply to unix_rr"},
	} {
		s := Default(c.w)
		c.set(&s)
		err := s.Validate()
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.opt || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want an OptionError for %s with %q", c.w.Name, err, c.opt, c.want)
		}
	}
	// Against a netserver: what it cannot serve is refused by name.
	for _, c := range []struct {
		w    *Workload
		set  func(s *Spec)
		want string
	}{
		{TCPBidir, func(s *Spec) { s.Connections = 1 }, "option connections=1 is not supported by netserver (netserver has no test that sends both ways on one connection"},
		{TCPStream, func(s *Spec) { s.Protocol = ProtocolMPTCP }, "option protocol is not supported by netserver"},
		{UnixRR, func(s *Spec) {}, "option test unix_rr is not supported by netserver"},
	} {
		s := Default(c.w)
		s.Server, s.Host = ServerNetserver, "198.18.0.2"
		c.set(&s)
		var ne *NetserverUnsupportedError
		if err := s.Validate(); !errors.As(err, &ne) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s against a netserver: %v, want %q", c.w.Name, err, c.want)
		}
	}
	for _, conns := range []int{0, 2} { // not given: 2 against a netserver
		s := Default(TCPBidir)
		s.Server, s.Host, s.Connections = ServerNetserver, "198.18.0.2", conns
		if err := s.Validate(); err != nil || !s.BidirSplit() {
			t.Errorf("tcp_bidir connections=%d against a netserver: %v, split %v", conns, err, s.BidirSplit())
		}
	}
}

// TestDirection: a tcp_bidir of a connection per direction runs as its
// pair, with its options and without connections.
func TestDirection(t *testing.T) {
	s := Default(TCPBidir)
	s.Connections, s.SendSize, s.Protocol = 2, 1000, ProtocolMPTCP
	if !s.BidirSplit() {
		t.Fatal("connections=2 is not split")
	}
	for i, want := range []*Workload{TCPStream, TCPMaerts} {
		d := s.Direction(i)
		if d.Workload != want || d.Connections != 0 || d.SendSize != 1000 || !d.MPTCP() {
			t.Errorf("direction %d: %+v", i, d)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("direction %d: %v", i, err)
		}
	}
}
