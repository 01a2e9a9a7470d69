package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

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
	ready := proto.Ready{DataPort: t.port, Buffers: t.buffers, Server: s.info()}
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
	if !w.RR() {
		return 0, fmt.Errorf("test %s is not supported by this server", m.Test)
	}
	max := spec.MaxMessage
	if w.UDP() {
		max = 65507
	}
	switch {
	case m.Request < 1 || m.Request > max:
		return 0, fmt.Errorf("request size %d out of range 1-%d", m.Request, max)
	case m.Response < 1 || m.Response > max:
		return 0, fmt.Errorf("response size %d out of range 1-%d", m.Response, max)
	case m.Burst < 0 || m.Burst > spec.MaxBurst:
		return 0, fmt.Errorf("burst %d out of range 0-%d", m.Burst, spec.MaxBurst)
	case m.DataPort < 0 || m.DataPort > 65535:
		return 0, fmt.Errorf("data port %d out of range", m.DataPort)
	case m.SendBuffer < 0 || m.SendBuffer > 1<<30 || m.RecvBuffer < 0 || m.RecvBuffer > 1<<30:
		return 0, fmt.Errorf("socket buffer sizes out of range 0-%d", 1<<30)
	case m.DurationNs < 0 || m.DurationNs > int64(spec.MaxDuration):
		return 0, fmt.Errorf("duration out of range 0-%v", spec.MaxDuration)
	case len(m.Brand) > 1024:
		return 0, errors.New("brand longer than 1024 bytes")
	}
	return w, nil
}
