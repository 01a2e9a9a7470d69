package limits

import (
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAdmission(t *testing.T) {
	l := Default()
	l.MaxTests, l.MaxTestsPerClient = 3, 2
	a := NewAdmission(l)
	c1, c2 := netip.MustParseAddr("198.18.0.1"), netip.MustParseAddr("198.18.1.2")
	r1, err := a.Admit(c1)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := a.Admit(c1)
	if err != nil {
		t.Fatal(err)
	}
	var busy *Busy
	if _, err := a.Admit(c1); !errors.As(err, &busy) || busy.BoundName() != "max-tests-per-client" || !strings.Contains(err.Error(), "the limit per client network is 2") {
		t.Fatalf("third test from one client: %v", err)
	}
	// Another address of its /24 is the same client.
	if _, err := a.Admit(netip.MustParseAddr("198.18.0.77")); !errors.As(err, &busy) ||
		err.Error() != "server busy for 198.18.0.77: 2 tests of its network 198.18.0.0/24 are running, the limit per client network is 2" {
		t.Fatalf("another address of its network: %v", err)
	}
	r3, err := a.Admit(c2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Admit(netip.MustParseAddr("198.18.2.3")); !errors.As(err, &busy) || busy.BoundName() != "max-tests" || !strings.HasSuffix(err.Error(), "the limit is 3") {
		t.Fatalf("fourth test in all: %v", err)
	}
	r1()
	r1() // a second release is harmless
	if a.Running() != 2 {
		t.Fatalf("running %d after one release, want 2", a.Running())
	}
	if _, err := a.Admit(netip.MustParseAddr("::ffff:198.18.0.1")); err != nil {
		t.Fatalf("mapped address of c1 after a release: %v", err)
	}
	r2()
	r3()
}

// TestAdmissionConcurrent: under -race, admissions and releases from many
// goroutines never exceed the limit and end at zero.
func TestAdmissionConcurrent(t *testing.T) {
	l := Default()
	l.MaxTests, l.MaxTestsPerClient = 10, 10
	a := NewAdmission(l)
	var wg sync.WaitGroup
	var mu sync.Mutex
	peak := 0
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, err := a.Admit(netip.MustParseAddr("198.18.0.9"))
			if err != nil {
				return
			}
			mu.Lock()
			if n := a.Running(); n > peak {
				peak = n
			}
			mu.Unlock()
			time.Sleep(time.Millisecond)
			rel()
		}()
	}
	wg.Wait()
	if peak > 10 || a.Running() != 0 {
		t.Fatalf("peak %d, left %d", peak, a.Running())
	}
}

func TestChecks(t *testing.T) {
	l := Default()
	var b Bounded
	if err := l.Duration(2 * time.Hour); err == nil || err.Error() != "duration 2h0m0s exceeds this server's limit of 1h0m0s" ||
		!errors.As(err, &b) || b.BoundName() != "max-duration" {
		t.Fatalf("got %v", err)
	}
	if err := l.Port(80); err == nil || !strings.Contains(err.Error(), "1024-65535") {
		t.Fatalf("port 80: %v", err)
	}
	if l.Port(0) != nil || l.Port(12345) != nil {
		t.Fatal("ports 0 and 12345 refused")
	}
	if err := Int("request size", "max-message", 1<<30, 1, int64(l.MaxMessage)); !errors.As(err, &b) || b.BoundName() != "max-message" {
		t.Fatalf("got %v", err)
	}
}

// TestValidate: the operator's values are checked, and a refusal names
// the bound so the command line can name its flag.
func TestValidate(t *testing.T) {
	l := Default()
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"0-10", "10-5", "x", "1-70000"} {
		var p PortRange
		if p.Set(bad) == nil {
			t.Errorf("port range %q accepted", bad)
		}
	}
	var p PortRange
	if err := p.Set("20000-20100"); err != nil || p != (PortRange{20000, 20100}) || p.String() != "20000-20100" {
		t.Errorf("port range 20000-20100: %v, %v", p, err)
	}
	var inv *Invalid
	l.MaxTests = 0
	if err := l.Validate(); !errors.As(err, &inv) || inv.BoundName() != "max-tests" || err.Error() != "max-tests must be positive" {
		t.Fatalf("max-tests 0: got %v", err)
	}
	l = Default()
	l.MaxFrame = 1000
	if err := l.Validate(); !errors.As(err, &inv) || inv.Bound != "max-frame" || inv.Want != "must be at least 1024 bytes" {
		t.Fatalf("max-frame 1000: got %v", err)
	}
}

// TestConnRate: a test at the rate passes, one above it is refused once
// the bucket's second of burst is spent, and the refusal names the flag.
func TestConnRate(t *testing.T) {
	clock := time.Unix(0, 0)
	r := NewConnRate(1000, 100)
	r.now = func() time.Time { return clock }
	// Exactly at the rate for ten seconds: 100 connections every 100 ms.
	for i := 0; i < 100; i++ {
		clock = clock.Add(100 * time.Millisecond)
		if err := r.Check(); err != nil {
			t.Fatalf("at the rate, check %d: %v", i, err)
		}
	}
	// Twice the rate: the one-second burst lasts about a second.
	var err error
	checks := 0
	for ; checks < 100 && err == nil; checks++ {
		clock = clock.Add(50 * time.Millisecond)
		err = r.Check()
	}
	if err == nil || checks < 15 || checks > 25 {
		t.Fatalf("twice the rate: refused after %d checks (%v), want about 20", checks, err)
	}
	want := "connection rate of more than 1000/s exceeds this server's limit of 1000/s"
	var b Bounded
	if err.Error() != want || !errors.As(err, &b) || b.BoundName() != "max-conn-rate" {
		t.Fatalf("got %q", err)
	}
}

// TestThreadCeiling: the ceiling keeps the budget's OS threads under half
// the runtime's limit; the default never passes it; a budget beyond it is
// refused naming the bound and the ceiling.
func TestThreadCeiling(t *testing.T) {
	c := ThreadCeiling(RuntimeThreads)
	if c != 2468 || OSThreads(c) > RuntimeThreads/2 || OSThreads(c+1) <= RuntimeThreads/2 {
		t.Fatalf("ceiling %d: its threads %d, the next's %d, half the limit %d", c, OSThreads(c), OSThreads(c+1), RuntimeThreads/2)
	}
	if d := Default(); d.MaxThreads > c || d.MaxThreads < 128 {
		t.Fatalf("default budget %d", d.MaxThreads)
	}
	l := Default()
	l.MaxThreads = c
	if err := l.Validate(); err != nil {
		t.Fatalf("the ceiling itself: %v", err)
	}
	l.MaxThreads = c + 1
	var inv *Invalid
	if err := l.Validate(); !errors.As(err, &inv) || inv.Bound != "max-threads" || !strings.Contains(err.Error(), "must be at most 2468") {
		t.Fatalf("beyond the ceiling: %v", err)
	}
}

// TestClientNet: IPv4 clients count by /24, IPv6 ones by /64, a mapped
// address as its IPv4 one.
func TestClientNet(t *testing.T) {
	for in, want := range map[string]string{
		"198.18.7.9":        "198.18.7.0/24",
		"::ffff:198.18.7.9": "198.18.7.0/24",
		"2001:2::1:2:3:4":   "2001:2::/64",
		"2001:2:0:5:6::7":   "2001:2:0:5::/64",
		"127.0.1.200":       "127.0.1.0/24",
		"fe80::1%eth0":      "fe80::/64",
	} {
		if got := ClientNet(netip.MustParseAddr(in)).String(); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
