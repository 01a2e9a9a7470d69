package client_test

import (
	"context"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestNewWorkloadsSmoke: every workload of issue 32 runs against a server
// in this process and counts work at both ends.
func TestNewWorkloadsSmoke(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, c := range []struct {
		w   *spec.Workload
		set func(s *spec.Spec)
	}{
		{spec.UnixRR, nil}, {spec.UnixCRR, nil}, {spec.UnixStream, nil}, {spec.UnixgramRR, nil}, {spec.UnixgramStream, nil},
		{spec.TCPSendfile, nil}, {spec.TCPBidir, nil}, {spec.TCPBidir, func(s *spec.Spec) { s.Connections = 2 }},
	} {
		s := spec.Default(c.w)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration = 300 * time.Millisecond
		if c.set != nil {
			c.set(&s)
		}
		res, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err != nil {
			t.Errorf("%s: %v", c.w.Name, err)
			continue
		}
		t.Logf("%s: %.1f %s sent %d recv %d remote %+v tx=%v", c.w.Name, res.Throughput, res.Units, res.BytesSent, res.BytesReceived, *res.Remote, res.Tx != nil)
	}
}
