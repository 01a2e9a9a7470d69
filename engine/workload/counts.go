package workload

import (
	"net/netip"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/result"
	"netscript/engine/sock"
)

// Errnos counts failures by errno without allocating on the data path.
type Errnos [256]uint64

// Add counts one failure with errno e.
func (c *Errnos) Add(e unix.Errno) {
	if int(e) < len(c) {
		c[e]++
	} else {
		c[0]++
	}
}

// Map returns the non-zero counts keyed by errno name ("EADDRNOTAVAIL").
func (c *Errnos) Map() map[string]uint64 {
	m := map[string]uint64{}
	for i, n := range c {
		if n == 0 {
			continue
		}
		name := "other"
		if i != 0 {
			name = sock.ErrnoName(unix.Errno(i))
		}
		m[name] += n
	}
	return m
}

// Counts is what a client loop counted over its measured interval.
type Counts struct {
	Transactions  uint64        // completed inside the interval
	Discarded     uint64        // in flight at the deadline: sent, not counted
	BytesSent     uint64        // bytes written to the data socket(s)
	BytesReceived uint64        // bytes read from the data socket(s)
	Elapsed       time.Duration // the measured interval
	Began         time.Duration // when the loop began its first transaction or send, from the start
	First         time.Duration // when the first transaction completed, from the start
	Lost          uint64        // UDP transactions given up after the loss timeout
	Connects      uint64        // connections made (TCP_CRR)
	Errors        Errnos        // failed calls by errno

	SendCalls uint64 // send calls that moved data (streams)
	RecvCalls uint64 // receive calls that returned data (streams)
	Refused   uint64 // UDP_STREAM: datagrams the local stack refused (ENOBUFS and the like): not sent
	Drained   uint64 // bytes read after the measured interval ended (TCP_MAERTS)
	FastOpen  FastOpenCounts

	Censored Censored        // the transactions discarded at the end: how old they were
	TCP      result.TCPSums  // TCP_INFO of the flow's connection(s) over the interval (tcpinfo.go)
	ZeroCopy result.ZeroCopy // with zerocopy=True: the MSG_ZEROCOPY sends and their completions
	Schedule ScheduleCounts  // with an arrival schedule: the requests it placed, sent and sent late
}

// FastOpenCounts is what TCP_INFO said about each TCP_CRR connection made
// over TCP Fast Open.
type FastOpenCounts struct {
	Attempted        uint64 // connections opened with sendto(MSG_FASTOPEN)
	Accepted         uint64 // the server took the request in the SYN (TCPI_OPT_SYN_DATA)
	CookieRequests   uint64 // no cookie was cached: the SYN asked for one and carried no data
	NotAcked         uint64 // the SYN carried data the server did not take: sent again after the handshake
	SynRetransmitted uint64 // the SYN with data had to be sent again
	Unknown          uint64 // none of the above (TCP_INFO could not tell)
}

// Add adds o's counts to f.
func (f *FastOpenCounts) Add(o *FastOpenCounts) {
	f.Attempted += o.Attempted
	f.Accepted += o.Accepted
	f.CookieRequests += o.CookieRequests
	f.NotAcked += o.NotAcked
	f.SynRetransmitted += o.SynRetransmitted
	f.Unknown += o.Unknown
}

// ServerCounts is what a server loop counted for one test.
type ServerCounts struct {
	Transactions  uint64 // requests answered
	BytesSent     uint64
	BytesReceived uint64
	Accepts       uint64 // connections accepted
	Errors        Errnos
	Peers         Peers // the distinct client addresses seen

	SendCalls uint64          // send calls that moved data (streams)
	RecvCalls uint64          // receive calls that returned data (UDP_STREAM: datagrams)
	Markers   uint64          // UDP_STREAM: end-of-test datagrams seen
	FastOpen  uint64          // TCP_CRR: accepted connections whose SYN carried the request
	Strangers uint64          // connections or datagrams refused: not from the authenticated client
	TCP       result.TCPSums  // TCP_INFO of the connections served (tcpinfo.go)
	ZeroCopy  result.ZeroCopy // TCP_MAERTS with zerocopy=True: the MSG_ZEROCOPY sends and their completions
}

// Peers keeps the distinct peer addresses (without ports) a server saw, up
// to a bound, with how many connections or datagrams came from each. Adding
// a peer already seen allocates nothing.
type Peers struct {
	Addrs  []netip.Addr
	Counts []uint64
	More   bool // more distinct peers than were kept
}

// maxPeers bounds how many distinct peer addresses a test keeps.
const maxPeers = 256

// Add notes one connection or datagram from addr.
func (p *Peers) Add(addr netip.Addr) { p.add(addr) }

// add notes one from addr and returns addr's index in Addrs, or -1 if
// there was no room to keep it or it is no IP address.
func (p *Peers) add(addr netip.Addr) int {
	if !addr.IsValid() {
		return -1 // a UNIX domain peer: no address to keep
	}
	for i, a := range p.Addrs {
		if a == addr {
			p.Counts[i]++
			return i
		}
	}
	if len(p.Addrs) >= maxPeers {
		p.More = true
		return -1
	}
	p.Addrs = append(p.Addrs, addr)
	p.Counts = append(p.Counts, 1)
	return len(p.Addrs) - 1
}

// sourceGate admits the datagrams a UDP server loop receives: it turns
// away sources that are not allowed (counted as Strangers) and counts the
// rest against their source in Peers. A run of datagrams from the source
// of the previous one costs one comparison each.
type sourceGate struct {
	last    sock.Addr // the source of the last admitted datagram
	lastIdx int       // its index in Peers, or -1 if it is not kept
	any     bool      // a datagram was admitted
}

// admit reports whether the datagram from from is to be served, and counts
// it in c.
func (g *sourceGate) admit(from *sock.Addr, allowed *Allow, c *ServerCounts) bool {
	if g.any && *from == g.last {
		if g.lastIdx >= 0 {
			c.Peers.Counts[g.lastIdx]++
		}
		return true
	}
	from.Received()
	if !allowed.From(from) {
		c.Strangers++
		return false
	}
	g.last, g.lastIdx, g.any = *from, c.Peers.add(from.AddrPort().Addr()), true
	return true
}

// Merge adds the counts of o to c.
func (c *Errnos) Merge(o *Errnos) {
	for i, n := range o {
		c[i] += n
	}
}

// Merge adds the peers of o, with their counts, to p.
func (p *Peers) Merge(o Peers) {
	for i, a := range o.Addrs {
		p.Add(a) // counts one, or notes that there are More
		if k := p.indexOf(a); k >= 0 {
			p.Counts[k] += o.Counts[i] - 1
		}
	}
	p.More = p.More || o.More
}

func (p *Peers) indexOf(a netip.Addr) int {
	for i, b := range p.Addrs {
		if a == b {
			return i
		}
	}
	return -1
}

// Merge adds the counts of o, one of several server loops of one test, to c.
func (c *ServerCounts) Merge(o *ServerCounts) {
	c.Transactions += o.Transactions
	c.BytesSent += o.BytesSent
	c.BytesReceived += o.BytesReceived
	c.Accepts += o.Accepts
	c.Errors.Merge(&o.Errors)
	c.Peers.Merge(o.Peers)
	c.SendCalls += o.SendCalls
	c.RecvCalls += o.RecvCalls
	c.Markers += o.Markers
	c.FastOpen += o.FastOpen
	c.Strangers += o.Strangers
	c.TCP.Merge(&o.TCP)
	c.ZeroCopy.Add(o.ZeroCopy)
}
