// Package limits holds the bounds a netscript daemon puts on what clients
// may ask of it, and the admission control that enforces the concurrent
// ones. Every value a client sends is checked against a Limits before the
// daemon spends anything on it; the operator sets them with serve's flags.
package limits

import (
	"fmt"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits are the operator's bounds. The zero value is not useful; start
// from Default.
type Limits struct {
	MaxFrame          int           // largest control message payload, bytes
	Liveness          time.Duration // how long a test's client may be silent when it asked for heartbeats; 0: DefaultLiveness
	MaxDuration       time.Duration // longest test
	MaxMessage        int           // largest request, response or send size, bytes
	MaxBuffer         int           // largest socket buffer a client may ask for, bytes
	MaxFlows          int           // most flows (connections) in one test
	MaxTests          int           // most tests running at once, in all
	MaxTestsPerClient int           // most tests running at once from one client network (ClientNet)
	MaxConnRate       int           // most connections per second a TCP_CRR-style test may make
	MaxPending        int           // most control connections still in their handshake
	// MaxPendingPerClient is the most of those from one client network
	// (ClientNet), so one host cannot hold them all and lock the others
	// out.
	MaxPendingPerClient int
	// MaxThreads is the daemon's budget of data-path threads, charged when
	// a test is admitted (its Setup) and returned when it ends; a test that
	// does not fit is refused. Each thread pins its stack and at most a few
	// MiB of buffers, so this bounds the daemon's memory too, and its OS
	// threads (OSThreads). At most ThreadCeiling.
	MaxThreads       int
	HandshakeTimeout time.Duration // bound on each step before a test starts
	DataPorts        PortRange     // data ports a client may ask for by number
}

// Default returns bounds generous enough for any benchmark a lab runs and
// small enough that no single client can exhaust the daemon.
func Default() Limits {
	return Limits{
		MaxFrame:            64 << 10,
		MaxDuration:         time.Hour,
		MaxMessage:          16 << 20,
		MaxBuffer:           256 << 20,
		MaxFlows:            1024,
		MaxTests:            64,
		MaxTestsPerClient:   32,
		MaxConnRate:         200000,
		MaxPending:          256,
		MaxPendingPerClient: 32,
		MaxThreads:          DefaultMaxThreads(),
		HandshakeTimeout:    10 * time.Second,
		DataPorts:           PortRange{Lo: 1024, Hi: 65535},
	}
}

// DefaultMaxThreads is the thread budget of a daemon on this machine: 64
// per CPU, at least 128, and never past ThreadCeiling. A test of many
// flows is served on a few epoll threads, so this fits every test a lab
// runs at once.
func DefaultMaxThreads() int {
	return min(max(128, 64*runtime.NumCPU()), ThreadCeiling(RuntimeThreads))
}

// RuntimeThreads is the most OS threads a daemon's Go runtime may make:
// netscript serve sets it (debug.SetMaxThreads), and a process that goes
// past it dies ("thread exhaustion"). It is the runtime's own default,
// set explicitly so that the ceiling of the budget is derived from the
// value in force.
const RuntimeThreads = 10000

// The OS threads of a daemon whose data-path threads are n at most:
//
//   - n threads locked to their data paths;
//   - as many again at most: each data-path thread holds a scheduler slot
//     while it blocks in a raw system call (GOMAXPROCS follows them,
//     workload.Threads), and when the runtime's monitor preempts it the
//     slot passes to another thread for a while, which the runtime keeps
//     afterwards (docs/benchmarks.md, The Go floor);
//   - a constant: the runtime's own (the monitor, the template thread, the
//     one parked in the network poller, the threads of the scheduler's
//     spare slots and of system calls the control paths make), 7 when
//     idle; ThreadOverhead bounds it. Measured (cmd/netscript:
//     TestThreadBudgetHoldsOnAnyHost): 2,304 data-path threads held by an
//     attack made 2,400 to 3,300 OS threads, under 2 x 2,304 + 64.
//
// OSThreads(n) is that bound.
func OSThreads(n int) int { return 2*max(n, runtime.NumCPU()) + ThreadOverhead }

// ThreadOverhead is the constant of OSThreads.
const ThreadOverhead = 64

// ThreadCeiling is the largest budget whose OS threads (OSThreads) stay
// within half of runtimeMax, so that no budget can bring the runtime near
// its limit: 2,468 for RuntimeThreads. --max-threads beyond it is refused.
func ThreadCeiling(runtimeMax int) int { return (runtimeMax/2 - ThreadOverhead) / 2 }

// Validate checks the operator's values; its error is an *Invalid.
func (l *Limits) Validate() error {
	pos := []struct {
		name string
		v    int64
	}{
		{"max-frame", int64(l.MaxFrame)}, {"max-duration", int64(l.MaxDuration)}, {"max-message", int64(l.MaxMessage)},
		{"max-buffer", int64(l.MaxBuffer)}, {"max-flows", int64(l.MaxFlows)}, {"max-tests", int64(l.MaxTests)},
		{"max-tests-per-client", int64(l.MaxTestsPerClient)}, {"max-conn-rate", int64(l.MaxConnRate)},
		{"max-pending", int64(l.MaxPending)}, {"max-pending-per-client", int64(l.MaxPendingPerClient)},
		{"max-threads", int64(l.MaxThreads)}, {"handshake-timeout", int64(l.HandshakeTimeout)},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return &Invalid{Bound: p.name, Want: "must be positive"}
		}
	}
	if l.MaxFrame < 1024 {
		return &Invalid{Bound: "max-frame", Want: "must be at least 1024 bytes"}
	}
	if c := ThreadCeiling(RuntimeThreads); l.MaxThreads > c {
		return &Invalid{Bound: "max-threads", Want: fmt.Sprintf("must be at most %d: each data-path thread may take two OS threads, "+
			"and the Go runtime ends the daemon at %d (the ceiling keeps the budget's threads under half of that)", c, RuntimeThreads)}
	}
	return nil
}

// Invalid is an operator's value that Validate refuses: the bound, by its
// name ("max-tests"), and what it must be. The daemon's command line,
// whose flags are named after the bounds, words it as a flag.
type Invalid struct {
	Bound string
	Want  string // "must be positive"
}

func (e *Invalid) Error() string { return e.Bound + " " + e.Want }

// BoundName is the name of the bound whose value was refused.
func (e *Invalid) BoundName() string { return e.Bound }

// Exceeded is a request beyond a bound; it says what was asked and the
// limit, and names the bound (Flag) so the front end can tell the
// script's user what to ask the operator for.
type Exceeded struct {
	What  string // "duration", "request size", ...
	Got   string
	Limit string
	Flag  string // the bound's name ("max-duration"), which serve's flag is named after
}

func (e *Exceeded) Error() string {
	return fmt.Sprintf("%s %s exceeds this server's limit of %s", e.What, e.Got, e.Limit)
}

// Int checks one integer value against [lo, hi].
func Int(what, flagName string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return &Exceeded{What: what, Got: strconv.FormatInt(v, 10), Limit: fmt.Sprintf("%d-%d", lo, hi), Flag: flagName}
	}
	return nil
}

// Duration checks a test length.
func (l *Limits) Duration(d time.Duration) error {
	if d < 0 || d > l.MaxDuration {
		return &Exceeded{What: "duration", Got: d.String(), Limit: l.MaxDuration.String(), Flag: "max-duration"}
	}
	return nil
}

// PortRange is an inclusive range of ports.
type PortRange struct{ Lo, Hi int }

// String formats the range as LO-HI.
func (p *PortRange) String() string { return fmt.Sprintf("%d-%d", p.Lo, p.Hi) }

// Set parses LO-HI (or a single port).
func (p *PortRange) Set(s string) error {
	lo, hi, found := strings.Cut(s, "-")
	if !found {
		hi = lo
	}
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil || a < 1 || b > 65535 || a > b {
		return fmt.Errorf("port range %q: want LO-HI within 1-65535", s)
	}
	p.Lo, p.Hi = a, b
	return nil
}

// Port checks a data port a client asked for by number (0: the server
// chooses, always allowed).
func (l *Limits) Port(port int) error {
	if port == 0 {
		return nil
	}
	if port < l.DataPorts.Lo || port > l.DataPorts.Hi {
		return &Exceeded{What: "data port", Got: strconv.Itoa(port), Limit: l.DataPorts.String(), Flag: "data-ports"}
	}
	return nil
}

// Admission counts running tests in all and per client network
// (ClientNet) and refuses new ones beyond the limits. Its zero value is
// not usable; make one with NewAdmission.
type Admission struct {
	mu        sync.Mutex
	total     int
	perClient map[netip.Prefix]int
	max, per  int
}

// Per-client bounds (--max-tests-per-client, --max-pending-per-client)
// count a client by its network, not its exact address: one host commonly
// holds a whole IPv4 /24 or IPv6 /64 (a subnet of its own, SLAAC privacy
// addresses, 127.0.0.0/8), and counting exact addresses would let it take
// every slot with as many addresses.
const (
	ClientNet4 = 24
	ClientNet6 = 64
)

// ClientNet is the network a client address is counted under.
func ClientNet(a netip.Addr) netip.Prefix {
	a = a.Unmap().WithZone("")
	bits := ClientNet6
	if a.Is4() {
		bits = ClientNet4
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return netip.Prefix{} // the zero address: all such count together
	}
	return p
}

// NewAdmission enforces l's concurrency bounds.
func NewAdmission(l Limits) *Admission {
	return &Admission{perClient: map[netip.Prefix]int{}, max: l.MaxTests, per: l.MaxTestsPerClient}
}

// Busy is a refusal because too many tests (or connections) run; Bound
// names the bound that refused it (serve's flags are named after them).
type Busy struct {
	Msg   string
	Bound string
}

func (e *Busy) Error() string { return e.Msg }

// Admit takes a slot for a test from client; the returned function gives
// it back (call it exactly once).
func (a *Admission) Admit(addr netip.Addr) (release func(), err error) {
	client := ClientNet(addr)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.total >= a.max {
		return nil, &Busy{Msg: fmt.Sprintf("server busy: %d tests are running, the limit is %d", a.total, a.max), Bound: "max-tests"}
	}
	if a.perClient[client] >= a.per {
		return nil, &Busy{Msg: fmt.Sprintf("server busy for %s: %d tests of its network %s are running, the limit per client network is %d",
			addr.Unmap(), a.perClient[client], client, a.per), Bound: "max-tests-per-client"}
	}
	a.total++
	a.perClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			a.total--
			if a.perClient[client]--; a.perClient[client] <= 0 {
				delete(a.perClient, client)
			}
			a.mu.Unlock()
		})
	}, nil
}

// Running returns how many tests hold slots.
func (a *Admission) Running() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.total
}

// ConnRate is a token bucket for the connections one test accepts. The
// accept loop calls Check once every `every` connections, so it reads the
// clock rarely and costs nothing per connection; the bucket holds one
// second of connections, so only a test that stays above the rate for
// longer than that is refused.
type ConnRate struct {
	rate   float64 // connections per second
	burst  float64
	every  float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

// NewConnRate returns a bucket for perSecond connections, checked every
// `every` connections.
func NewConnRate(perSecond, every int) *ConnRate {
	r := &ConnRate{rate: float64(perSecond), every: float64(every), now: time.Now}
	r.burst = max(r.rate, 2*r.every)
	return r
}

// Check accounts for `every` more connections. It returns an *Exceeded
// naming the bound max-conn-rate once the connections have outrun the
// rate by more than the bucket holds.
func (r *ConnRate) Check() error {
	now := r.now()
	if r.last.IsZero() {
		r.tokens = r.burst
	} else {
		r.tokens = min(r.burst, r.tokens+now.Sub(r.last).Seconds()*r.rate)
	}
	r.last = now
	r.tokens -= r.every
	if r.tokens < 0 {
		lim := strconv.FormatFloat(r.rate, 'f', -1, 64) + "/s"
		return &Exceeded{What: "connection rate", Got: "of more than " + lim, Limit: lim, Flag: "max-conn-rate"}
	}
	return nil
}

// DefaultLiveness is how long a test's client may send nothing on the
// control connection, when it asked for heartbeats, before the server
// ends the test (at least three of the client's heartbeat periods).
const DefaultLiveness = 5 * time.Second
