package server

import (
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/sock"
)

// tagWait bounds how long a new TCP data connection may take to send its
// tag. The checks run side by side, so a stranger that sends nothing costs
// the test's own connections nothing but a slot among maxUnproven.
const tagWait = 5 * time.Second

// maxUnproven bounds the connections of one endpoint still proving their
// tag, beyond the test's own flows not yet arrived (unprovenRoom). When it
// is full, the waiting ones are read again, and then a new connection
// takes the place of the oldest waiting one from the client network
// (limits.ClientNet) that holds the most of them: a flood of strangers
// pushes out its own connections, not the client's, whose tag follows its
// connection (on a loaded client, by a moment: hence the room for every
// flow still to come, so that a test's own burst of connections never
// evicts itself).
const maxUnproven = 64

// unprovenRoom is how many connections may wait for their tags at once:
// maxUnproven, and one for each of the test's flows not yet arrived.
func (t *test) unprovenRoom() int {
	return maxUnproven + max(t.flows-int(t.arrived.Load()), 0)
}

// acceptBatch bounds the connections taken from the listener's backlog in
// one round, so the waiting ones are read between batches.
const acceptBatch = 256

// unproven is a data connection that has not yet sent its whole tag.
type unproven struct {
	fd       int
	peer     sock.Addr
	prefix   netip.Prefix
	got      int
	buf      [auth.TagSize]byte
	deadline time.Time
}

// tagCheck holds an endpoint's connections that are proving their tag.
// Only its endpoint's accepting thread uses it.
type tagCheck struct {
	waiting []*unproven
	pfds    []unix.PollFd
	found   []*unproven // proved, not yet handed to a flow
}

// close closes the connections still waiting or not yet handed out.
func (c *tagCheck) close() {
	for _, u := range c.waiting {
		sock.Close(u.fd)
	}
	for _, u := range c.found {
		sock.Close(u.fd)
	}
	c.waiting, c.found = nil, nil
}

// accept waits for one data connection of the test on ep and returns it
// (-1 if the test is stopped first or accept fails), with its peer in
// peer. A native test's connection must send the session's tag first (and
// is answered with the server's); a netperf test's must come from its
// client's address.
func (t *test) accept(ep *endpoint, peer *sock.Addr) int {
	if t.tag != nil {
		return t.acceptTagged(ep, peer, nil)
	}
	for !t.stopped.Load() {
		fd, en := sock.Accept(ep.fd, peer)
		if en == 0 {
			peer.Received()
			if !t.allowed.Has(peer.AddrPort().Addr()) {
				t.strangers.Add(1) // a netperf test's data comes from its client's address only
				sock.Close(fd)
				continue
			}
			t.arrive()
			return fd
		}
		if en != unix.EAGAIN && en != unix.EINTR && en != unix.ECONNABORTED {
			t.fail(fmt.Errorf("accept: %w", en))
			return -1
		}
	}
	return -1
}

// acceptTagged is accept for a native session: one poll over the listener
// and every connection still sending its tag, so the checks run
// concurrently, each bounded by tagWait. It also gives up (-1) once until
// is closed (nil: never).
func (t *test) acceptTagged(ep *endpoint, peer *sock.Addr, until <-chan struct{}) int {
	c := &ep.tags
	tickMs := int(sock.Tick / time.Millisecond)
	for !t.stopped.Load() && !closed(until) {
		if len(c.found) > 0 {
			u := c.found[0]
			c.found = c.found[1:]
			*peer = u.peer
			t.arrive()
			return u.fd
		}
		c.pfds = append(c.pfds[:0], unix.PollFd{Fd: int32(ep.fd), Events: unix.POLLIN})
		for _, u := range c.waiting {
			c.pfds = append(c.pfds, unix.PollFd{Fd: int32(u.fd), Events: unix.POLLIN})
		}
		if _, err := unix.Poll(c.pfds, tickMs); err != nil && err != unix.EINTR {
			t.fail(fmt.Errorf("poll: %w", err))
			return -1
		}
		now := time.Now()
		// c.pfds[i+1] is c.waiting[i]; connections accepted below are past
		// its end and are read at once.
		keep := c.waiting[:0]
		for i, u := range c.waiting {
			if t.settle(c, u, c.pfds[i+1].Revents, now) {
				keep = append(keep, u)
			}
		}
		clear(c.waiting[len(keep):])
		c.waiting = keep
		if c.pfds[0].Revents != 0 && !closed(until) {
			// (Once until is closed, what waits in the backlog is the
			// test's, for the loop that follows: Start came before it.)
			t.acceptAll(ep, now)
		}
	}
	return -1
}

// settle reads what u has sent of its tag and, once it is decided, moves
// it to c.found or closes it; it reports whether u still waits.
func (t *test) settle(c *tagCheck, u *unproven, revents int16, now time.Time) bool {
	switch t.readTag(u, revents, now) {
	case tagGood:
		c.found = append(c.found, u)
		return false
	case tagBad:
		t.strangers.Add(1) // not this session's client: not a flow
		sock.Close(u.fd)
		return false
	}
	return true
}

// acceptAll takes the connections waiting in ep's backlog (a batch at
// most) and reads each one's tag at once: a client's tag follows its
// connection, so it is usually there already. One still silent waits,
// taking the place of the oldest waiting connection of the busiest prefix
// when the waiting list is full.
func (t *test) acceptAll(ep *endpoint, now time.Time) {
	c := &ep.tags
	for range acceptBatch {
		u := &unproven{deadline: now.Add(tagWait)}
		fd, en := sock.Accept(ep.fd, &u.peer)
		if en != 0 {
			if en != unix.EAGAIN && en != unix.EINTR && en != unix.ECONNABORTED {
				t.fail(fmt.Errorf("accept: %w", en))
			}
			return
		}
		u.peer.Received()
		u.fd, u.prefix = fd, limits.ClientNet(u.peer.AddrPort().Addr())
		if !t.settle(c, u, unix.POLLIN, now) {
			continue
		}
		if len(c.waiting) >= t.unprovenRoom() {
			t.rereadWaiting(c, now)
		}
		if len(c.waiting) >= t.unprovenRoom() {
			t.evictBusiest(c)
		}
		c.waiting = append(c.waiting, u)
	}
}

// rereadWaiting reads again, without waiting, every connection still
// proving its tag, so one whose tag has come since the last poll is
// settled before any is evicted.
func (t *test) rereadWaiting(c *tagCheck, now time.Time) {
	keep := c.waiting[:0]
	for _, u := range c.waiting {
		if t.settle(c, u, unix.POLLIN, now) {
			keep = append(keep, u)
		}
	}
	clear(c.waiting[len(keep):])
	c.waiting = keep
}

// evictBusiest closes the oldest waiting connection of the prefix that
// holds the most waiting connections.
func (t *test) evictBusiest(c *tagCheck) {
	count := map[netip.Prefix]int{}
	busiest, most := netip.Prefix{}, 0
	for _, u := range c.waiting {
		count[u.prefix]++
		if n := count[u.prefix]; n > most {
			busiest, most = u.prefix, n
		}
	}
	for i, u := range c.waiting {
		if u.prefix == busiest {
			t.strangers.Add(1)
			sock.Close(u.fd)
			c.waiting = append(c.waiting[:i], c.waiting[i+1:]...)
			return
		}
	}
}

// closed reports, without waiting, whether ch is closed (a nil ch never is).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// What readTag found.
const (
	tagPending = iota
	tagGood
	tagBad
)

// readTag reads what u has sent of its tag without blocking and checks it
// once complete; a good one is answered with the server's tag (the client
// sends nothing more until it has it).
func (t *test) readTag(u *unproven, revents int16, now time.Time) int {
	if revents != 0 {
		n, _, err := unix.Recvfrom(u.fd, u.buf[u.got:], unix.MSG_DONTWAIT)
		switch {
		case err == unix.EAGAIN || err == unix.EINTR:
		case err != nil || n == 0:
			return tagBad
		default:
			u.got += n
		}
		if u.got == len(u.buf) {
			if !auth.Equal(u.buf[:], t.tag) {
				return tagBad
			}
			// Into the new socket's empty send buffer: it never waits.
			if n, err := unix.SendmsgN(u.fd, t.ack, nil, nil, unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL); err != nil || n != len(t.ack) {
				return tagBad
			}
			return tagGood
		}
	}
	if now.After(u.deadline) {
		return tagBad
	}
	return tagPending
}
