package workload

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/hist"
	"netscript/engine/sock"
)

// TestTCPInfoAllocs: tcp_crr's per-connection TCP_INFO on both ends, the
// knobs set on every connection, interim samples that read TCP_INFO and
// MSG_ZEROCOPY sends with their completions allocate nothing per unit of
// work.
func TestTCPInfoAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts need a quiet runtime")
	}
	t.Run("TCP_CRR tcp_info and knobs", func(t *testing.T) {
		lfd, addr := crrListener(t)
		var stop atomic.Bool
		srv := &CRRServer{LFD: lfd, Request: 1, Response: 1, Stop: &stop, TCPInfo: true}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		knobs := &sock.Knobs{Congestion: "reno", HasTOS: true, TOS: 0x10, QuickAck: true}
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			c := &CRR{Loop: Loop{Limits: Limits{Transactions: 200 * scale}, Hist: hist.New()}, Remote: addr, Request: 1, Response: 1,
				TCPInfo: true, Knobs: knobs}
			c.Prepare()
			return func() (uint64, error) {
				c.Run()
				if c.Err == nil && (c.Result.TCP.Conns != c.Result.Transactions || c.Result.TCP.Congestion != "reno") {
					t.Errorf("TCP_INFO of %d connections (%q) for %d transactions", c.Result.TCP.Conns, c.Result.TCP.Congestion, c.Result.Transactions)
				}
				return c.Result.Transactions, c.Err
			}
		})
	})
	t.Run("TCP_RR quickack, interim samples with TCP_INFO", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &RRServer{FD: sfd, Request: 1, Response: 1, Stop: &stop, QuickAck: true}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			iv := NewInterim(time.Millisecond, 0)
			iv.TCP = &InterimTCP{FD: cfd}
			rr := &RR{Loop: Loop{Limits: Limits{Transactions: 200 * scale}, Hist: hist.New(), Pace: NewPacer(4000), Interim: iv},
				FD: cfd, Request: 1, Response: 1, QuickAck: true}
			rr.Prepare()
			return func() (uint64, error) {
				rr.Run()
				if ss := iv.Samples(); len(ss) == 0 || !ss[0].TCP || ss[0].Cwnd == 0 {
					t.Errorf("interim samples without TCP_INFO: %+v", ss[:min(len(ss), 1)])
				}
				return rr.Result.Transactions, rr.Err
			}
		})
	})
	t.Run("TCP_STREAM zerocopy", func(t *testing.T) {
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			cfd, sfd := tcpPair(t)
			var stop atomic.Bool
			srv := &StreamSink{FD: sfd, RecvSize: 1 << 16, Stop: &stop}
			srv.Prepare()
			serve(t, &stop, srv.Run)
			z, err := sock.NewZeroCopy(cfd)
			if err != nil {
				t.Fatal(err)
			}
			s := &Stream{Loop: Loop{Limits: Limits{Duration: time.Hour}}, FD: cfd, SendSize: 4096, Bytes: 4 << 20 * scale,
				Drain: time.Second, ZeroCopy: z}
			s.Prepare()
			return func() (uint64, error) {
				s.Run()
				if zc := s.Result.ZeroCopy; zc.Sends != s.Result.SendCalls || zc.Completed != zc.Sends {
					t.Errorf("zerocopy %+v for %d sends", zc, s.Result.SendCalls)
				}
				return s.Result.SendCalls, s.Err
			}
		})
	})
}

// TestCRRKnobRefusedEndsLoop: a knob the kernel refuses on a connection
// ends the threaded tcp_crr loop at once with the knob's own error, as the
// multiplexed one does, rather than ten thousand retries under "connect".
func TestCRRKnobRefusedEndsLoop(t *testing.T) {
	lfd, addr := crrListener(t)
	var stop atomic.Bool
	srv := &CRRServer{LFD: lfd, Request: 1, Response: 1, Stop: &stop}
	srv.Prepare()
	serve(t, &stop, srv.Run)
	c := &CRR{Loop: Loop{Limits: Limits{Transactions: 100}, Hist: hist.New()}, Remote: addr, Request: 1, Response: 1,
		Knobs: &sock.Knobs{Congestion: "nosuch"}}
	c.Prepare()
	c.Run()
	var ke *sock.KnobError
	if !errors.As(c.Err, &ke) || ke.Option != "congestion" || ke.End != "client" {
		t.Fatalf("error %v, want the congestion knob refused by the client", c.Err)
	}
	if n := c.Result.Errors[ke.Err]; n != 1 || c.Result.Transactions != 0 {
		t.Errorf("%d transactions, %d refusals counted (%v), want 0 and 1", c.Result.Transactions, n, c.Result.Errors)
	}
}
