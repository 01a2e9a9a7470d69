package client_test

import (
	"context"
	"testing"

	"netscript/engine/client"
	"netscript/engine/client/netservertest"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestBuffersAtEnd: the result carries this end's data socket buffers as
// they were once the loop ended: set ones stay as granted (the kernel does
// not autotune a buffer set by SO_SNDBUF), a connection per transaction
// has none to read, and a netserver reports its own end's.
func TestBuffersAtEnd(t *testing.T) {
	addr := startServer(t, &workload.Threads{})
	s := spec.Default(spec.TCPStream)
	s.Host, s.Port = addr.Addr().String(), int(addr.Port())
	s.Duration, s.Bytes, s.SendBuffer = 0, 4<<20, 64<<10
	res, err := client.Run(context.Background(), s, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Config
	if c.LocalSendBufferEnd != c.LocalSendBuffer || c.LocalRecvBufferEnd <= 0 {
		t.Errorf("tcp_stream with a set send buffer: end %d/%d, granted %d/%d", c.LocalSendBufferEnd, c.LocalRecvBufferEnd, c.LocalSendBuffer, c.LocalRecvBuffer)
	}
	if c.RemoteSendBufferEnd != 0 || c.RemoteRecvBufferEnd != 0 {
		t.Errorf("a netscript server reports no end sizes, got %d/%d", c.RemoteSendBufferEnd, c.RemoteRecvBufferEnd)
	}

	s = spec.Default(spec.TCPCRR)
	s.Host, s.Port = addr.Addr().String(), int(addr.Port())
	s.Duration, s.Transactions = 0, 20
	if res, err = client.Run(context.Background(), s, client.Options{}); err != nil {
		t.Fatal(err)
	}
	if c := res.Config; c.LocalSendBufferEnd != 0 || c.LocalRecvBufferEnd != 0 {
		t.Errorf("tcp_crr has no data socket at the end, got %d/%d", c.LocalSendBufferEnd, c.LocalRecvBufferEnd)
	}

	port := netservertest.Start(t, "127.0.0.1")
	s = npSpec(spec.TCPStream, "127.0.0.1", port)
	s.Duration, s.Bytes = 0, 4<<20
	res = npRun(t, s)
	if c := res.Config; c.LocalSendBufferEnd <= 0 || c.RemoteRecvBufferEnd <= 0 || c.RemoteSendBufferEnd <= 0 {
		t.Errorf("tcp_stream to netserver: end sizes local %d/%d, remote %d/%d", c.LocalSendBufferEnd, c.LocalRecvBufferEnd, c.RemoteSendBufferEnd, c.RemoteRecvBufferEnd)
	}
}
