package client

import (
	"errors"
	"strings"
	"testing"
	"time"

	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestTestErrorShowsPartialFigures: a failed test's message carries what
// it measured before the failure, bytes for streams and transactions for
// request/response tests, and nothing when nothing was measured.
func TestTestErrorShowsPartialFigures(t *testing.T) {
	cause := errors.New("tcp_stream: no progress")
	for _, tc := range []struct {
		name    string
		partial *result.Result
		want    string
	}{
		{"no result", nil, "tcp_stream: no progress"},
		{"stream", &result.Result{Units: result.UnitsBits, BytesSent: 1000, Elapsed: 2, Throughput: 0.004},
			"tcp_stream: no progress (measured before that: 1000 bytes sent and 0 received in 2.000 s, 0.00 10^6bits/s)"},
		{"maerts", &result.Result{Units: result.UnitsBits, BytesReceived: 5e6, Elapsed: 1, Throughput: 40},
			"tcp_stream: no progress (measured before that: 0 bytes sent and 5000000 received in 1.000 s, 40.00 10^6bits/s)"},
		{"empty stream", &result.Result{Units: result.UnitsBits}, "tcp_stream: no progress"},
		{"rr", &result.Result{Units: result.UnitsTrans, Transactions: 10, BytesSent: 10, Elapsed: 1, Throughput: 10},
			"tcp_stream: no progress (measured before that: 10 transactions in 1.000 s, 10.00 Trans/s)"},
		{"rr nothing", &result.Result{Units: result.UnitsTrans, BytesSent: 10}, "tcp_stream: no progress"},
	} {
		if got := (&TestError{Err: cause, Partial: tc.partial}).Error(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestNoWork: which finished tests did no work, and how the account names
// what both ends counted.
func TestNoWork(t *testing.T) {
	rr, crr, stream, maerts := spec.Default(spec.TCPRR), spec.Default(spec.TCPCRR), spec.Default(spec.TCPStream), spec.Default(spec.TCPMaerts)
	remote := func(rx uint64, errs map[string]uint64) *result.Remote {
		return &result.Remote{BytesReceived: rx, Errors: errs}
	}
	for _, tc := range []struct {
		name string
		s    spec.Spec
		res  result.Result
		want string // "" for work done
	}{
		{"rr worked", rr, result.Result{Transactions: 1}, ""},
		{"crr strangers", crr, result.Result{Elapsed: 2, Errors: map[string]uint64{"ECONNRESET": 12, "EPIPE": 3}, Remote: remote(0, map[string]uint64{"unauthenticated": 20})},
			"tcp_crr: no transaction completed (client: 12 ECONNRESET, 3 EPIPE; server: 20 unauthenticated) in 2.0 s"},
		{"rr nothing counted", rr, result.Result{Elapsed: 1, Errors: map[string]uint64{"timeout": 0}, Remote: remote(0, nil)},
			"tcp_rr: no transaction completed (client: no error counted; server: no error counted) in 1.0 s"},
		{"stream received", stream, result.Result{BytesSent: 10, Remote: remote(10, nil)}, ""},
		{"stream lost", stream, result.Result{Elapsed: 1, BytesSent: 10, Remote: remote(0, nil)},
			"tcp_stream: no byte reached the server (10 sent) (client: no error counted; server: no error counted) in 1.0 s"},
		{"stream without control", stream, result.Result{BytesSent: 10}, ""},
		{"stream without control, nothing sent", stream, result.Result{Elapsed: 1, Errors: map[string]uint64{"EPIPE": 1}},
			"tcp_stream: no byte was sent (client: 1 EPIPE) in 1.0 s"},
		{"maerts worked", maerts, result.Result{BytesReceived: 1}, ""},
		{"maerts nothing", maerts, result.Result{Elapsed: 1, Remote: remote(0, nil)},
			"tcp_maerts: no byte arrived from the server (client: no error counted; server: no error counted) in 1.0 s"},
	} {
		got := ""
		if e := NoWork(&tc.s, &tc.res); e != nil {
			got = e.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestStallBound: what a healthy flow may wait on purpose is added to the
// liveness bound.
func TestStallBound(t *testing.T) {
	paced := spec.Default(spec.TCPStream)
	paced.Rate = 0.5
	for _, tc := range []struct {
		name string
		s    spec.Spec
		want time.Duration
	}{
		{"tcp_rr", spec.Default(spec.TCPRR), 3 * time.Second},
		{"udp_rr: its loss timeout", spec.Default(spec.UDPRR), 4 * time.Second},
		{"tcp_crr: its connect timeout", spec.Default(spec.TCPCRR), 8 * time.Second},
		{"paced: the gap between sends", paced, 5 * time.Second},
	} {
		if got := stallBound(&tc.s, 3*time.Second); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStallWatch: the watch tells a stall only when no unfinished flow has
// moved for the bound, says since when and how many flows; a flow that
// reached its count is finished, and past the duration nothing stalls. The
// watch reads a clock the test sets.
func TestStallWatch(t *testing.T) {
	const bound = 3 * time.Second
	var now time.Duration
	watch := func(s *spec.Spec, lives ...*workload.Live) *stallWatch {
		w := newStallWatch(s, lives, bound, time.Now())
		w.now = func() time.Duration { return now }
		return w
	}
	at := func(d time.Duration, l *workload.Live, c workload.Counts) { now = d; l.Store(d, &c) }

	stream := spec.Default(spec.TCPStream)
	a, b := &workload.Live{}, &workload.Live{}
	w := watch(&stream, a, b)
	for _, tc := range []struct {
		now   time.Duration
		moveA uint64 // flow a's bytes by then; 0: a does not move
		stall bool
	}{
		{0, 0, false},
		{time.Second, 100, false},
		{1997 * time.Millisecond, 200, false}, // a's last move; b never moves
		{4 * time.Second, 0, false},           // 2.0 s without a move
		{4996 * time.Millisecond, 0, false},
		{5 * time.Second, 0, true}, // 3.0 s
	} {
		if tc.moveA > 0 {
			at(tc.now, a, workload.Counts{BytesSent: tc.moveA})
		}
		now = tc.now
		if e := w.check(); (e != nil) != tc.stall {
			t.Fatalf("at %v: stall %v", tc.now, e)
		}
	}
	e := w.check()
	if e.Flows != 2 || e.Stalled != 2 || e.For != 3003*time.Millisecond || e.Since != 1997*time.Millisecond {
		t.Errorf("%+v", e)
	}
	if want := "tcp_stream: no progress on the data connections of all 2 flows for 3.0 s (since 1.997 s into the test)"; e.Error() != want {
		t.Errorf("%s, want %s", e, want)
	}
	if idle, since := w.idle(); idle != 3003*time.Millisecond || since != 1997*time.Millisecond {
		t.Errorf("idle %v since %v", idle, since)
	}

	// By count: flow a has done its 10 transactions, b stalls.
	rr := spec.Default(spec.TCPRR)
	rr.Duration, rr.Transactions = 0, 10
	a, b = &workload.Live{}, &workload.Live{}
	at(time.Millisecond, a, workload.Counts{Transactions: 10})
	w = watch(&rr, a, b)
	now = 10 * time.Second
	e = w.check()
	if e == nil || e.Stalled != 1 || !strings.Contains(e.Error(), "of 1 of 2 flows (the others had finished)") {
		t.Errorf("%+v: %v", e, e)
	}
	b.Store(time.Millisecond, &workload.Counts{Transactions: 10})
	if e := w.check(); e != nil {
		t.Errorf("finished flows stall: %v", e)
	}

	// Past the duration the loops are ending: no stall.
	short := spec.Default(spec.TCPStream)
	short.Duration = time.Second
	w = watch(&short, &workload.Live{})
	if now = 10 * time.Second; w.check() != nil {
		t.Errorf("a stall past the duration")
	}

	one := (&StallError{Workload: "tcp_rr", Flows: 1, Stalled: 1, For: 3 * time.Second, Since: 1997 * time.Millisecond}).Error()
	if one != "tcp_rr: no progress on the data connection for 3.0 s (since 1.997 s into the test)" {
		t.Errorf("%s", one)
	}
}

// TestHeartbeatPeriod: three heartbeats within the liveness bound, within
// what a server takes.
func TestHeartbeatPeriod(t *testing.T) {
	for bound, want := range map[time.Duration]time.Duration{
		3 * time.Second: time.Second, 100 * time.Millisecond: 33333333, 10 * time.Minute: time.Minute, time.Millisecond: 10 * time.Millisecond,
	} {
		if got := heartbeatPeriod(bound); got != want {
			t.Errorf("bound %v: period %v, want %v", bound, got, want)
		}
	}
}
