package spec

// The workloads over UNIX domain sockets: netperf's tests of the same
// shape over the machine's own sockets (netperf's STREAM_RR,
// STREAM_STREAM, DG_RR, DG_STREAM, and TCP_CRR's shape, which netperf
// lacks). The client and the server are on one machine: the server makes
// its socket (an abstract name, or a file in a directory of its own) at
// set-up and names it in Ready; the control connection stays TCP.
var (
	// UnixRR is TCP_RR's shape over a SOCK_STREAM UNIX domain socket
	// (netperf's STREAM_RR).
	UnixRR = &Workload{
		Name: "unix_rr", Netperf: "UNIX_RR", NetperfAs: "STREAM_RR", Code: 10,
		Unit:      "a request and its response on one UNIX domain stream connection",
		Short:     "request/response on one UNIX stream connection",
		Unix:      true,
		Messages:  true,
		HalfClose: true,
		Takes:     []string{OptTransactions, OptRequest, OptResponse, OptBurst},
		MuxClient: true,
		MuxServer: true,
	}

	// UnixCRR is TCP_CRR's shape over UNIX domain stream sockets: a
	// connection per transaction.
	UnixCRR = &Workload{
		Name: "unix_crr", Netperf: "UNIX_CRR", Code: 11,
		Unit:           "connect, request, response, close over a UNIX domain stream socket, a new connection per transaction",
		Short:          "connect, request, response, close, UNIX",
		Unix:           true,
		PerTransaction: true,
		Messages:       true,
		Takes:          []string{OptTransactions, OptRequest, OptResponse},
		MuxClient:      true,
	}

	// UnixStream is TCP_STREAM's shape over a SOCK_STREAM UNIX domain
	// socket (netperf's STREAM_STREAM).
	UnixStream = &Workload{
		Name: "unix_stream", Netperf: "UNIX_STREAM", NetperfAs: "STREAM_STREAM", Code: 12,
		Unit:      "bulk data, client to server, over a UNIX domain stream socket",
		Short:     "bulk data client to server over UNIX",
		Unix:      true,
		Bulk:      true,
		Takes:     []string{OptSendSize, OptRecvSize, OptBytes},
		MuxServer: true,
	}

	// UnixgramRR is UDP_RR's shape over SOCK_DGRAM UNIX domain sockets
	// (netperf's DG_RR).
	UnixgramRR = &Workload{
		Name: "unixgram_rr", Netperf: "UNIXGRAM_RR", NetperfAs: "DG_RR", Code: 13,
		Unit:     "a request datagram and its response datagram over UNIX domain sockets",
		Short:    "request/response datagrams over UNIX",
		Unix:     true,
		Datagram: true,
		Messages: true,
		Takes:    []string{OptTransactions, OptRequest, OptResponse, OptBurst, OptTimeout},
	}

	// UnixgramStream is UDP_STREAM's shape over SOCK_DGRAM UNIX domain
	// sockets (netperf's DG_STREAM). A UNIX datagram is not dropped: a
	// send waits while the receiver's queue is full.
	UnixgramStream = &Workload{
		Name: "unixgram_stream", Netperf: "UNIXGRAM_STREAM", NetperfAs: "DG_STREAM", Code: 14,
		Unit:     "datagrams client to server over UNIX domain sockets, counted at both ends",
		Short:    "datagrams client to server, UNIX",
		Unix:     true,
		Datagram: true,
		Bulk:     true,
		Takes:    []string{OptSendSize, OptRecvSize, OptBytes},
	}
)

// validateUnix refuses what a test over UNIX domain sockets cannot have:
// an address or a port of its own (the server names its socket), a
// standing endpoint, a netserver.
func (s *Spec) validateUnix() error {
	if !s.Workload.Unix {
		return nil
	}
	for _, o := range []struct {
		name string
		set  bool
	}{
		{"local", s.Local != "" || len(s.Locals) > 0},
		{"local_port", s.LocalPort != 0 || len(s.LocalPorts) > 0},
		{"data_port", s.DataPort != 0 || len(s.DataPorts) > 0},
	} {
		if o.set {
			return bad(o.name, "does not apply to %s: a UNIX domain socket has a name, not an address and a port (the server names its own)", s.Workload.Name)
		}
	}
	if s.NoControl {
		return bad("control", "%s needs a control connection: the server makes its UNIX domain socket at set-up and names it there", s.Workload.Name)
	}
	if s.Netserver() {
		return &NetserverUnsupportedError{Option: "test " + s.Workload.Name,
			Why: "netserver serves only tests over IP to netscript (and the reference netperf was built without UNIX domain tests)"}
	}
	return nil
}
