package workload

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/hist"
	"netscript/engine/sock"
)

// intended walks s and returns the intended starts of its first n requests.
func intended(s *Schedule, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = s.Next()
		s.advance()
	}
	return out
}

// near reports whether a and b are within a microsecond of each other
// (the schedule maps through float seconds).
func near(a, b time.Duration) bool { return (a - b).Abs() <= time.Microsecond }

// TestScheduleTimes: the intended starts of constant schedules, a flow's
// share, ramps up and down, and a ramp into a rate of 0, computed by hand.
func TestScheduleTimes(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name        string
		rate        float64
		ramp        []Stage
		flow, flows int
		want        func(k int) time.Duration
	}{
		{"constant", 100, nil, 0, 1, func(k int) time.Duration { return time.Duration(k) * 10 * ms }},
		// Flow 2 of 4 at 100/s over all: the requests 2, 6, 10, ... of one
		// stream every 10 ms.
		{"a flow's share", 100, nil, 2, 4, func(k int) time.Duration { return time.Duration(4*k+2) * 10 * ms }},
		// From 0 to 100/s over 1 s: 50t² requests by t, so the k-th at
		// sqrt(k/50) s; then 100/s.
		{"ramp up, then hold", 0, []Stage{{100, time.Second}}, 0, 1, func(k int) time.Duration {
			if k <= 50 {
				return time.Duration(math.Sqrt(float64(k)/50) * 1e9)
			}
			return time.Second + time.Duration(k-50)*10*ms
		}},
		// 100/s held for 1 s (a flat stage), then down to 50/s over 2 s:
		// 100t - 12.5t² requests by t into the slope.
		{"flat, then down", 100, []Stage{{100, time.Second}, {50, 2 * time.Second}}, 0, 1, func(k int) time.Duration {
			if k <= 100 {
				return time.Duration(k) * 10 * ms
			}
			u := float64(k - 100)
			if u <= 150 {
				return time.Second + time.Duration((100-math.Sqrt(100*100-50*u))/25*1e9)
			}
			return 3*time.Second + time.Duration(u-150)*20*ms
		}},
		// Down to 0 over 1 s: 100t - 50t² requests by t, 50 in all (the
		// last at 1 s), then none.
		{"down to 0", 100, []Stage{{0, time.Second}}, 0, 1, func(k int) time.Duration {
			if k > 50 {
				return never
			}
			return time.Second - time.Duration(math.Sqrt(1-float64(k)/50)*1e9)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSchedule(tc.rate, tc.ramp, false, tc.flow, tc.flows, 1)
			for k, got := range intended(s, 400) {
				want := tc.want(k)
				if want == never && got != never || want != never && !near(got, want) {
					t.Fatalf("request %d: intended at %v, want %v", k, got, want)
				}
			}
		})
	}
}

// TestSchedulePoisson: a Poisson schedule places as many requests as its
// rate over a long stretch (within five standard deviations), its gaps have
// the exponential's mean and spread, its flows draw different streams, and
// Reset replays the same one.
func TestSchedulePoisson(t *testing.T) {
	const rate, span = 1000.0, 100 * time.Second
	s := NewSchedule(rate, nil, true, 0, 1, 42)
	var n, sumSq float64
	var last time.Duration
	first := s.Next()
	for s.Next() < span {
		g := (s.Next() - last).Seconds()
		sumSq += g * g
		last = s.Next()
		n++
		s.advance()
	}
	want := rate * span.Seconds()
	if math.Abs(n-want) > 5*math.Sqrt(want) {
		t.Errorf("%v requests in %v at %v/s, want %v ± %.0f", n, span, rate, want, 5*math.Sqrt(want))
	}
	// The exponential's second moment is 2/rate²; over 1e5 gaps its
	// estimate is within a few percent.
	if m2 := sumSq / n; math.Abs(m2*rate*rate-2) > 0.1 {
		t.Errorf("the gaps' second moment is %.3g/rate², want 2 (exponential gaps)", m2*rate*rate)
	}
	s.Reset()
	if s.Next() != first {
		t.Errorf("after Reset the first request is at %v, before at %v", s.Next(), first)
	}
	other := NewSchedule(rate, nil, true, 1, 1, 42)
	if a, b := intended(NewSchedule(rate, nil, true, 0, 1, 42), 5), intended(other, 5); a[4] == b[4] {
		t.Errorf("flows 0 and 1 drew the same schedule: %v", a)
	}
}

// TestScheduleWaitCountsLate: a loop held past the intended starts of two
// requests (250 ms at 10/s) counts exactly those two late, sends them at
// once with their intended starts, and is on time again for the third
// (due 50 ms after the hold: a margin for a loaded machine); Close counts
// what was placed before the end, within the transaction limit.
func TestScheduleWaitCountsLate(t *testing.T) {
	const period = 100 * time.Millisecond
	s := NewSchedule(10, nil, false, 0, 1, 1)
	start := time.Now()
	var stop atomic.Bool
	forever := time.Duration(math.MaxInt64)
	if due, ok := s.Wait(start, 0, forever, &stop); !ok || due != 0 {
		t.Fatalf("first request: %v %v, want 0 true", due, ok)
	}
	time.Sleep(5 * period / 2) // the answer to request 0 comes late
	for k := 1; k <= 3; k++ {
		due, ok := s.Wait(start, time.Since(start), forever, &stop)
		if want := time.Duration(k) * period; !ok || due != want {
			t.Fatalf("request %d: %v %v, want %v true", k, due, ok, want)
		}
	}
	if now := time.Since(start); now < 3*period {
		t.Errorf("request 3 was released at %v, before its intended start %v", now, 3*period)
	}
	c := s.Counts
	if c.Late != 2 || c.Sent != 4 {
		t.Errorf("late %d of %d sent, want 2 of 4", c.Late, c.Sent)
	}
	if c.MaxBehind < period {
		t.Errorf("max behind %v, want at least %v (request 1 went at 250ms or later, due at 100ms)", c.MaxBehind, period)
	}
	stop.Store(true)
	if _, ok := s.Wait(start, 0, forever, &stop); ok {
		t.Error("Wait went on after stop")
	}
	s.Close(10*period, 0)
	if s.Counts.Scheduled != 10 {
		t.Errorf("scheduled %d before 1s at 10/s, want 10", s.Counts.Scheduled)
	}
	s.Reset()
	s.Close(10*period, 4)
	if s.Counts.Scheduled != 4 {
		t.Errorf("scheduled %d with a limit of 4, want 4", s.Counts.Scheduled)
	}
}

// TestScheduleWaitGivesUpAtDeadline: a schedule whose next request falls
// after the deadline waits out the deadline and gives up, as the loops'
// pacing does.
func TestScheduleWaitGivesUpAtDeadline(t *testing.T) {
	s := NewSchedule(1, nil, false, 0, 1, 1)
	start := time.Now()
	s.Wait(start, 0, time.Second, nil) // request 0, at 0
	if _, ok := s.Wait(start, 0, 20*time.Millisecond, nil); ok {
		t.Fatal("request 1, due at 1s, was released before a 20ms deadline")
	}
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Errorf("gave up at %v, before the deadline", el)
	}
}

// TestOpenModelAllocs: the open model's loops allocate nothing per
// transaction, a Poisson ramp included (checkAllocs).
func TestOpenModelAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts need a quiet runtime")
	}
	ramp := []Stage{{2e5, 10 * time.Millisecond}}
	t.Run("TCP_RR", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &RRServer{FD: sfd, Request: 1, Response: 1, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			rr := &RR{Loop: Loop{Limits: Limits{Transactions: 500 * scale}, Hist: hist.New(), Live: &Live{},
				Arrive: NewSchedule(1e5, ramp, true, 0, 1, 7)}, FD: cfd, Request: 1, Response: 1}
			rr.Prepare()
			return func() (uint64, error) { rr.Run(); return rr.Result.Transactions, rr.Err }
		})
	})
	t.Run("UDP_RR", func(t *testing.T) {
		cfd, sfd := udpPair(t)
		var stop atomic.Bool
		srv := &UDPRRServer{FD: sfd, Response: 32, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			u := &UDPRR{Loop: Loop{Limits: Limits{Transactions: 500 * scale}, Hist: hist.New(),
				Arrive: NewSchedule(1e5, nil, false, 0, 1, 7)}, FD: cfd, Request: 32, Response: 32, Timeout: sock.Tick}
			if err := u.Prepare(); err != nil {
				t.Fatal(err)
			}
			return func() (uint64, error) { u.Run(); return u.Result.Transactions, u.Err }
		})
	})
	t.Run("TCP_CRR", func(t *testing.T) {
		lfd, addr := crrListener(t)
		var stop atomic.Bool
		srv := &CRRServer{LFD: lfd, Request: 1, Response: 1, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			c := &CRR{Loop: Loop{Limits: Limits{Transactions: 200 * scale}, Hist: hist.New(),
				Arrive: NewSchedule(1e5, nil, true, 0, 1, 7)}, Remote: addr, Request: 1, Response: 1}
			c.Prepare()
			return func() (uint64, error) { c.Run(); return c.Result.Transactions, c.Err }
		})
	})
}
