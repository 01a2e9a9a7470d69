package workload

import (
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestUDPRRCensoredAtTheDeadline: requests nobody answers, with a loss
// timeout longer than the test, are all in flight at the deadline: they
// are discarded, and censored gives their ages (about the whole interval:
// they were sent at its start).
func TestUDPRRCensoredAtTheDeadline(t *testing.T) {
	cfd, _ := udpPair(t) // nobody answers on the server socket
	d := 300 * time.Millisecond
	u := &UDPRR{Loop: Loop{Limits: Limits{Duration: d}}, FD: cfd, Request: 1, Response: 1, Burst: 3, Timeout: time.Minute}
	u.Run()
	r := u.Result
	if u.Err != nil || r.Transactions != 0 || r.Lost != 0 || r.Discarded != 4 || r.Censored.Count != 4 {
		t.Fatalf("err %v, %d transactions, %d lost, %d discarded, censored %+v", u.Err, r.Transactions, r.Lost, r.Discarded, r.Censored)
	}
	c := r.Censored
	if c.Oldest <= d/2 || c.Oldest > d || c.Sum < 4*(d/2) {
		t.Errorf("censored %+v: want four ages of about %v", c, d)
	}
}

// TestRRCensoredIsWhatWasDiscarded: in a served timed TCP_RR, each
// transaction discarded at the deadline is censored with an age above 0
// (each was sent before the deadline), none older than the interval.
func TestRRCensoredIsWhatWasDiscarded(t *testing.T) {
	cfd, sfd := tcpPair(t)
	var stop atomic.Bool
	srv := &RRServer{FD: sfd, Request: 1, Response: 1, Burst: 4, Stop: &stop}
	done := make(chan struct{})
	go func() { srv.Run(); unix.Shutdown(sfd, unix.SHUT_WR); close(done) }()
	d := 200 * time.Millisecond
	rr := &RR{Loop: Loop{Limits: Limits{Duration: d}}, FD: cfd, Request: 1, Response: 1, Burst: 4}
	rr.Run()
	unix.Shutdown(cfd, unix.SHUT_WR)
	drain(cfd)
	<-done
	r := rr.Result
	if r.Discarded == 0 || r.Censored.Count != r.Discarded || r.Censored.Oldest <= 0 || r.Censored.Oldest > d || r.Censored.Sum < r.Censored.Oldest {
		t.Errorf("%d discarded, censored %+v", r.Discarded, r.Censored)
	}
}
