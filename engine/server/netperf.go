package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"netscript/engine/limits"
	"netscript/engine/npwire"
)

// A netperf listener (ListenNetperf) answers unmodified netperf 2.7
// clients on the daemon's own data paths and bounds: each control
// connection is a series of requests (DO_OMNI, DO_TCP_CC, DO_SYSINFO,
// CPU_CALIBRATE, ...), each test admitted against the same tests-at-once,
// per-client and thread budgets as a native test. netperf has no
// authentication: a test's data may come only from its control
// connection's address. Between tests a connection holds a pending slot
// (--max-pending, --max-pending-per-client) and must send its next request
// within --handshake-timeout.

// npMaxRequests bounds the requests one netperf control connection may
// send, and npMaxIdleRequests those in a row that are not tests, so a peer
// cannot hold a connection open forever on cheap requests.
const (
	npMaxRequests     = 4096
	npMaxIdleRequests = 64
)

// NetperfStats is what the netperf listeners of a server have counted.
type NetperfStats struct {
	Tests     uint64 // tests run to their results
	Refused   uint64 // requests refused: malformed, absurd, over a bound, or not a test netscript runs
	Dropped   uint64 // control connections ended for garbage, a short message or silence
	Vanished  uint64 // tests whose client went away before their results
	Strangers uint64 // data connections or datagrams refused: not from the test's client address
}

// netperfStats are the live counters of NetperfStats.
type netperfStats struct {
	tests, refused, dropped, vanished, strangers atomic.Uint64
}

// NetperfStats returns what the server's netperf listeners have counted.
func (s *Server) NetperfStats() NetperfStats {
	n := &s.np
	return NetperfStats{Tests: n.tests.Load(), Refused: n.refused.Load(), Dropped: n.dropped.Load(),
		Vanished: n.vanished.Load(), Strangers: n.strangers.Load()}
}

// NetperfReport is what the server counted in one netperf test, for
// Config.OnNetperf.
type NetperfReport struct {
	Test          string // netperf's name: "TCP_RR"
	Peer          string // the client's control address
	Transactions  uint64
	BytesSent     uint64
	BytesReceived uint64
	Elapsed       time.Duration // as reported to netperf
	CPUUtil       float64       // percent; -1 if not measured
	Affinity      []int         // the CPUs the test's threads could run on (netperf -T binds them to one)
}

// ListenNetperf opens a listener on addr ("127.0.0.1:12865") for netperf
// clients and starts serving it. It returns the address actually bound.
func (s *Server) ListenNetperf(addr string) (net.Addr, error) {
	return s.listen(addr, "listen for netperf on "+addr, s.netperfSession, s.netperfBusy)
}

// netperfBusy refuses a netperf control connection over the pending
// bounds: netperf speaks first, so there is nothing to answer yet; the
// connection is closed and netperf reports the lost control connection.
func (s *Server) netperfBusy(c net.Conn, why string) {
	s.np.refused.Add(1)
	s.log.Printf("netperf %s: %s", c.RemoteAddr(), why)
	c.Close()
}

// netperfSession serves one netperf control connection: requests until it
// closes, sends garbage, or goes quiet. It arrives holding a pending slot.
func (s *Server) netperfSession(c net.Conn, client netip.Addr, sl *slot) {
	defer c.Close()
	stopWatch := context.AfterFunc(s.ctx, func() { c.Close() })
	defer stopWatch()
	defer func() {
		if sl != nil {
			s.pend.give(sl)
		}
	}()
	peer := "netperf " + c.RemoteAddr().String()
	hs := s.lim.HandshakeTimeout
	idle := 0
	chosen := -1 // the data port this server chose for the last test
	for n := 0; ; n++ {
		if n >= npMaxRequests || idle >= npMaxIdleRequests {
			s.np.dropped.Add(1)
			s.log.Printf("%s: %d requests on one control connection, %d of them in a row not tests: closed", peer, n, idle)
			return
		}
		c.SetReadDeadline(time.Now().Add(hs))
		m, err := npwire.Read(c)
		c.SetReadDeadline(time.Time{})
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.np.dropped.Add(1)
				if errors.Is(err, os.ErrDeadlineExceeded) {
					err = limits.Hit("handshake-timeout", fmt.Errorf("no whole request within %v", hs))
				}
				s.log.Printf("%s: %s", peer, s.explain(err))
			}
			return
		}
		idle++
		switch m.Type {
		case npwire.TypeDoOmni, npwire.TypeDoTCPCC:
			p, err := parseNetperf(&s.lim, m, chosen)
			if err != nil {
				s.npRefuse(c, peer, m, err)
				continue
			}
			release, err := s.admit.Admit(client)
			if err != nil {
				s.npRefuse(c, peer, m, &npError{errno: npEBUSY, err: err})
				continue
			}
			idle = 0
			s.pend.give(sl)
			sl = nil
			chosen, err = s.runNetperf(c, peer, client, p, chosen)
			release()
			if err != nil {
				s.log.Printf("%s: %s: %v", peer, p.w, err)
				return
			}
			var full *limits.Busy
			if sl, full = s.pend.take(client, func() { c.Close() }); full != nil {
				s.log.Printf("%s: after the test: %s", peer, s.explain(full))
				return
			}
		case npwire.TypeDoSysinfo:
			err = npwire.Write(c, (&npwire.SysinfoResponse{Fields: strings.Split(npwire.SysinfoDeprecatedAnswer, ",")[1:]}).Message(), hs)
		case npwire.TypeCPUCalibrate:
			err = npwire.Write(c, (&npwire.CPUCalibrateResponse{Rate: npCPURate, NumCPUs: int32(npNumCPUs())}).Message(0), hs)
		case npwire.TypeDebugOn, npwire.TypeDebugOff:
			err = npwire.Write(c, &npwire.Message{Type: npwire.TypeDebugOK}, hs)
		case npwire.TypePassphrase:
			// netserver ignores a passphrase it did not ask for
		default:
			// netserver's answer to a request it does not know: errno 998,
			// and the connection goes on.
			s.npRefuse(c, peer, m, npErrorf(npUnknownRequest, "%s: not a request netscript serves", npwire.Name(m.Type)))
		}
		if err != nil {
			s.log.Printf("%s: %v", peer, err)
			return
		}
	}
}

// npRefuse answers a request with an error (netperf prints "remote error
// N"), counts and logs it.
func (s *Server) npRefuse(c net.Conn, peer string, m *npwire.Message, err error) {
	s.np.refused.Add(1)
	errno := errnoOf(err)
	s.log.Printf("%s: %s refused (errno %d): %s", peer, npwire.Name(m.Type), errno, s.explain(err))
	var rsp *npwire.Message
	switch m.Type {
	case npwire.TypeDoOmni:
		rsp = (&npwire.OmniResponse{}).Message(errno)
	case npwire.TypeDoTCPCC:
		rsp = (&npwire.TCPCCResponse{}).Message(errno)
	default:
		rsp = &npwire.Message{Type: m.Type, Word2: errno}
	}
	npwire.Write(c, rsp, time.Second)
}
