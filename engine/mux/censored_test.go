package mux

import (
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/workload"
)

// TestRRCensoredAtTheDeadline: a flow whose server never answers has its
// one request discarded at the deadline, and censored gives its age (about
// the whole interval); the other flows' censored transactions are exactly
// their discarded ones.
func TestRRCensoredAtTheDeadline(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(3)()
	cfds, sfds := pairs(t, 3)
	var flows []*Flow
	var conns []*Conn
	for i := range cfds {
		flows = append(flows, &Flow{FD: cfds[i], Hist: hist.New()})
		if i > 0 { // flow 0's server reads nothing and answers nothing
			conns = append(conns, &Conn{FD: sfds[i]})
		}
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { ServeRR(conns, 1, 1, 1, &stop); close(done) }()
	d := 400 * time.Millisecond
	RunRR(time.Now(), flows, &Config{Request: 1, Response: 1, Threads: 1, Limits: workload.Limits{Duration: d}})
	for _, f := range flows {
		unix.Shutdown(f.FD, unix.SHUT_WR)
	}
	<-done
	r := flows[0].Result
	if flows[0].Err != nil || r.Transactions != 0 || r.Discarded != 1 || r.Censored.Count != 1 {
		t.Fatalf("the unanswered flow: %d transactions, %d discarded, censored %+v, err %v", r.Transactions, r.Discarded, r.Censored, flows[0].Err)
	}
	if r.Censored.Oldest <= d/2 || r.Censored.Oldest > d || r.Censored.Sum != r.Censored.Oldest {
		t.Errorf("the unanswered flow: censored %+v, want its one request's age at the %v deadline", r.Censored, d)
	}
	for i, f := range flows[1:] {
		if c := f.Result.Censored; c.Count != f.Result.Discarded || c.Oldest > d {
			t.Errorf("flow %d: %d discarded, censored %+v", i+1, f.Result.Discarded, c)
		}
	}
}
