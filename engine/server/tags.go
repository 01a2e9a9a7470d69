package server

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/auth"
	"netscript/engine/sock"
)

// tagWait bounds how long a new TCP data connection of an authenticated
// session may take to send its tag. The checks run side by side, so a
// stranger that sends nothing costs the test's own connections nothing
// but a slot among maxUnproven.
const tagWait = 2 * time.Second

// maxUnproven bounds the connections of one endpoint still proving their
// tag; while it is full, new connections wait in the listener's backlog.
const maxUnproven = 64

// unproven is a data connection that has not yet sent its whole tag.
type unproven struct {
	fd       int
	peer     sock.Addr
	got      int
	buf      [auth.TagSize]byte
	deadline time.Time
}

// tagCheck holds an endpoint's connections that are proving their tag.
// Only its endpoint's accepting thread uses it.
type tagCheck struct {
	waiting []*unproven
	pfds    []unix.PollFd
}

// close closes the connections still waiting.
func (c *tagCheck) close() {
	for _, u := range c.waiting {
		sock.Close(u.fd)
	}
	c.waiting = nil
}

// accept waits for one data connection of the test on ep and returns it
// (-1 if the test is stopped first or accept fails), with its peer in
// peer. With an authenticated session only a connection that sends the
// session's tag first is one of the test's.
func (t *test) accept(ep *endpoint, peer *sock.Addr) int {
	if t.tag != nil {
		return t.acceptTagged(ep, peer)
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

// acceptTagged is accept for an authenticated session: one poll over the
// listener and every connection still sending its tag, so the checks run
// concurrently, each bounded by tagWait.
func (t *test) acceptTagged(ep *endpoint, peer *sock.Addr) int {
	c := &ep.tags
	tickMs := int(sock.Tick / time.Millisecond)
	for !t.stopped.Load() {
		c.pfds = c.pfds[:0]
		listening := len(c.waiting) < maxUnproven
		if listening {
			c.pfds = append(c.pfds, unix.PollFd{Fd: int32(ep.fd), Events: unix.POLLIN})
		}
		for _, u := range c.waiting {
			c.pfds = append(c.pfds, unix.PollFd{Fd: int32(u.fd), Events: unix.POLLIN})
		}
		if _, err := unix.Poll(c.pfds, tickMs); err != nil && err != unix.EINTR {
			t.fail(fmt.Errorf("poll: %w", err))
			return -1
		}
		now := time.Now()
		ready := c.pfds
		if listening {
			if ready[0].Revents != 0 {
				t.acceptOne(ep, now)
			}
			ready = ready[1:]
		}
		// ready[i] is c.waiting[i]; connections accepted just now are
		// past its end and wait for the next poll.
		keep := c.waiting[:0]
		var found *unproven
		for i, u := range c.waiting {
			if i >= len(ready) || found != nil {
				keep = append(keep, u)
				continue
			}
			switch t.readTag(u, ready[i].Revents, now) {
			case tagPending:
				keep = append(keep, u)
			case tagGood:
				found = u
			case tagBad:
				t.strangers.Add(1) // not this session's client: not a flow
				sock.Close(u.fd)
			}
		}
		clear(c.waiting[len(keep):])
		c.waiting = keep
		if found != nil {
			*peer = found.peer
			t.arrive()
			return found.fd
		}
	}
	return -1
}

// acceptOne takes a new connection from ep's listener into the waiting
// list.
func (t *test) acceptOne(ep *endpoint, now time.Time) {
	u := &unproven{deadline: now.Add(tagWait)}
	fd, en := sock.Accept(ep.fd, &u.peer)
	if en != 0 {
		if en != unix.EAGAIN && en != unix.EINTR && en != unix.ECONNABORTED {
			t.fail(fmt.Errorf("accept: %w", en))
		}
		return
	}
	u.peer.Received()
	u.fd = fd
	ep.tags.waiting = append(ep.tags.waiting, u)
}

// What readTag found.
const (
	tagPending = iota
	tagGood
	tagBad
)

// readTag reads what u has sent of its tag without blocking and checks it
// once complete.
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
			if auth.Verify(u.buf[:], t.tag) == nil {
				return tagGood
			}
			return tagBad
		}
	}
	if now.After(u.deadline) {
		return tagBad
	}
	return tagPending
}
