package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"time"

	"netscript/engine/cpu"
	"netscript/engine/proto"
	"netscript/engine/spec"
)

// session runs one control connection: one test.
func (s *Server) session(c net.Conn) {
	defer c.Close()
	stopWatch := context.AfterFunc(s.ctx, func() { c.Close() })
	defer stopWatch()
	pc := proto.NewConn(c)
	pc.MaxFrame = s.cfg.MaxFrame
	hs := s.cfg.HandshakeTimeout
	peer := c.RemoteAddr().String()
	if err := pc.Handshake(hs, true); err != nil {
		s.log.Printf("%s: handshake: %v", peer, err)
		return
	}
	var setup proto.Setup
	if err := pc.Expect(proto.TypeSetup, &setup, hs); err != nil {
		s.refuse(pc, peer, err)
		return
	}
	w, err := checkSetup(&setup)
	if err != nil {
		s.refuse(pc, peer, err)
		return
	}
	local, ok := netip.AddrFromSlice(c.LocalAddr().(*net.TCPAddr).IP)
	if !ok {
		s.refuse(pc, peer, errors.New("cannot tell the control connection's local address"))
		return
	}
	t, err := s.newTest(w, &setup, local.Unmap())
	if err != nil {
		s.refuse(pc, peer, err)
		return
	}
	defer t.close()
	ready := proto.Ready{DataPort: t.port, Buffers: t.buffers, Server: s.info(), TCPFastOpen: fastOpenSysctl()}
	if w == spec.TCPMaerts {
		ready.SendSize = t.sendSize
	}
	if w == spec.TCPStream || w == spec.UDPStream {
		ready.RecvSize = t.recvSize
	}
	if err := pc.Send(proto.TypeReady, ready, hs); err != nil {
		s.log.Printf("%s: %v", peer, err)
		return
	}
	if err := pc.Expect(proto.TypeStart, &proto.Start{}, hs+time.Duration(setup.DurationNs)); err != nil {
		s.log.Printf("%s: waiting for Start: %v", peer, err)
		return
	}
	t.start()
	if err := pc.Send(proto.TypeStarted, proto.Started{}, hs); err != nil {
		s.log.Printf("%s: %v", peer, err)
		return
	}
	// The test runs. The only message that may come now is Stop; a closed
	// connection means the client is gone and the test ends here.
	wait := s.cfg.Grace + time.Duration(setup.DurationNs)
	if setup.DurationNs == 0 {
		wait = spec.MaxDuration
	}
	if err := pc.Expect(proto.TypeStop, &proto.Stop{}, wait); err != nil {
		s.log.Printf("%s: test %s ended without Stop: %v", peer, setup.Test, err)
		return
	}
	res := t.stop()
	if err := pc.Send(proto.TypeResults, res, hs); err != nil {
		s.log.Printf("%s: %v", peer, err)
	}
}

// refuse sends the reason a session cannot go on and logs it.
func (s *Server) refuse(pc *proto.Conn, peer string, err error) {
	s.log.Printf("%s: %v", peer, err)
	var re *proto.RemoteError
	if errors.As(err, &re) {
		return // the client already said why it gave up
	}
	pc.Send(proto.TypeError, proto.Error{Message: err.Error()}, time.Second)
}

// checkSetup validates a Setup message from an untrusted client.
func checkSetup(m *proto.Setup) (spec.Workload, error) {
	w, err := spec.ParseWorkload(m.Test)
	if err != nil {
		return 0, err
	}
	max := spec.MaxMessage
	if w.UDP() {
		max = spec.MaxDatagram
	}
	if w.RR() {
		switch {
		case m.Request < 1 || m.Request > max:
			return 0, fmt.Errorf("request size %d out of range 1-%d", m.Request, max)
		case m.Response < 1 || m.Response > max:
			return 0, fmt.Errorf("response size %d out of range 1-%d", m.Response, max)
		}
	}
	switch {
	case m.Burst < 0 || m.Burst > spec.MaxBurst:
		return 0, fmt.Errorf("burst %d out of range 0-%d", m.Burst, spec.MaxBurst)
	case m.DataPort < 0 || m.DataPort > 65535:
		return 0, fmt.Errorf("data port %d out of range", m.DataPort)
	case m.SendBuffer < 0 || m.SendBuffer > spec.MaxBuffer || m.RecvBuffer < 0 || m.RecvBuffer > spec.MaxBuffer:
		return 0, fmt.Errorf("socket buffer sizes out of range 0-%d", spec.MaxBuffer)
	case m.DurationNs < 0 || m.DurationNs > int64(spec.MaxDuration):
		return 0, fmt.Errorf("duration out of range 0-%v", spec.MaxDuration)
	case len(m.Brand) > 1024:
		return 0, errors.New("brand longer than 1024 bytes")
	case m.SendSize < 0 || m.SendSize > max:
		return 0, fmt.Errorf("send size %d out of range 0-%d", m.SendSize, max)
	case m.RecvSize < 0 || m.RecvSize > spec.MaxMessage:
		return 0, fmt.Errorf("receive size %d out of range 0-%d", m.RecvSize, spec.MaxMessage)
	case math.IsNaN(m.Rate) || m.Rate < 0 || m.Rate > spec.MaxRate:
		return 0, fmt.Errorf("rate %v out of range 0-%g", m.Rate, spec.MaxRate)
	case m.FastOpen && w != spec.TCPCRR:
		return 0, fmt.Errorf("fastopen applies only to TCP_CRR, not %s", w)
	case m.Bytes > 0 && w != spec.TCPMaerts:
		return 0, fmt.Errorf("a byte count applies to the server only in TCP_MAERTS, not %s", w)
	}
	if m.CPU != nil {
		// The option's name, so the client's user knows what to change.
		if *m.CPU < 0 {
			return 0, fmt.Errorf("remote_cpu: must not be negative, got %d", *m.CPU)
		}
		if err := cpu.Check(*m.CPU); err != nil {
			return 0, fmt.Errorf("remote_cpu: %w", err)
		}
	}
	return w, nil
}
