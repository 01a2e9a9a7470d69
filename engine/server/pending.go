package server

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"netscript/engine/limits"
)

// Control connections that have not been admitted to a test hold pending
// slots: --max-pending in all, --max-pending-per-client per client network
// (limits.ClientNet). A slot is proven once its connection has done
// something a stranger cannot: proved the token (a daemon with one), or
// asked for a test. When a new connection finds no slot, it takes the
// place of the oldest unproven one of its own network if that network is
// full, else of the busiest network: connections that never prove anything
// make room for those that do, so silent or token-less strangers, however
// many and from however many networks, never keep a token holder out (a
// client proves the token within one round trip of connecting, and is the
// newest, never the oldest). Only when every slot is proven is a
// connection refused.

// slot is a control connection's pending place.
type slot struct {
	net    netip.Prefix
	since  time.Time
	proven bool
	gone   bool   // taken over by another connection (evicted)
	evict  func() // ends its connection
}

// pendingSet holds the pending slots.
type pendingSet struct {
	mu     sync.Mutex
	slots  []*slot
	byNet  map[netip.Prefix]int
	max    int
	perNet int
}

func newPendingSet(l *limits.Limits) *pendingSet {
	return &pendingSet{byNet: map[netip.Prefix]int{}, max: l.MaxPending, perNet: l.MaxPendingPerClient}
}

// take finds a slot for a new connection from addr (ended by evict if
// another takes its place), or says why there is none.
func (p *pendingSet) take(addr netip.Addr, evict func()) (*slot, *limits.Busy) {
	n := limits.ClientNet(addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.byNet[n] >= p.perNet:
		if !p.evictFrom(func(s *slot) bool { return s.net == n }) {
			return nil, &limits.Busy{Bound: "max-pending-per-client", Msg: fmt.Sprintf(
				"server busy for %s: %d control connections of its network %s are being set up, the limit per client network is %d",
				addr.Unmap(), p.byNet[n], n, p.perNet)}
		}
	case len(p.slots) >= p.max:
		busiest, most := netip.Prefix{}, 0
		for k, v := range p.byNet {
			if v > most && p.unprovenIn(k) {
				busiest, most = k, v
			}
		}
		if most == 0 || !p.evictFrom(func(s *slot) bool { return s.net == busiest }) {
			return nil, &limits.Busy{Bound: "max-pending", Msg: fmt.Sprintf(
				"server busy: %d control connections are being set up, the limit is %d", len(p.slots), p.max)}
		}
	}
	s := &slot{net: n, since: time.Now(), evict: evict}
	p.slots = append(p.slots, s)
	p.byNet[n]++
	return s, nil
}

// unprovenIn reports whether network n holds an unproven slot. Called with
// p.mu held.
func (p *pendingSet) unprovenIn(n netip.Prefix) bool {
	for _, s := range p.slots {
		if s.net == n && !s.proven {
			return true
		}
	}
	return false
}

// evictFrom ends the oldest unproven connection among those that match,
// and frees its slot at once; it reports whether there was one. Called
// with p.mu held.
func (p *pendingSet) evictFrom(match func(*slot) bool) bool {
	for _, s := range p.slots { // oldest first
		if !s.proven && match(s) {
			p.remove(s)
			s.gone = true
			go s.evict()
			return true
		}
	}
	return false
}

// remove takes s out of the set. Called with p.mu held.
func (p *pendingSet) remove(s *slot) {
	for i, x := range p.slots {
		if x == s {
			p.slots = append(p.slots[:i], p.slots[i+1:]...)
			break
		}
	}
	if p.byNet[s.net]--; p.byNet[s.net] <= 0 {
		delete(p.byNet, s.net)
	}
}

// prove marks s as its connection's proof of what a stranger cannot do.
func (p *pendingSet) prove(s *slot) {
	p.mu.Lock()
	s.proven = true
	p.mu.Unlock()
}

// give returns s (nothing if another connection took it over).
func (p *pendingSet) give(s *slot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !s.gone {
		s.gone = true
		p.remove(s)
	}
}

// count is how many slots are held, and how many of them are proven.
func (p *pendingSet) count() (held, proven int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.slots {
		if s.proven {
			proven++
		}
	}
	return len(p.slots), proven
}
