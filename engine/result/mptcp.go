package result

// MPTCP is what the client's kernel made of MPTCP connections
// (protocol="mptcp"): how many subflows each had at the end of the
// measured interval (MPTCP_TCPINFO), and each subflow's TCP_INFO figures
// over the interval. A test's is its flows' together: Subflow[i] is the
// i-th subflow of every connection, merged.
type MPTCP struct {
	Connections uint64 `json:"connections"`  // connections read
	Subflows    uint64 `json:"subflows"`     // subflows over those connections
	SubflowsMax uint64 `json:"subflows_max"` // the most one connection had
	// Fallbacks counts connections that fell back to plain TCP (the
	// server's end, or something on the path, did not take MPTCP): they
	// have one subflow, the TCP connection.
	Fallbacks uint64 `json:"fallbacks"`
	// Subflow holds each subflow's TCP_INFO figures, in the kernel's
	// order (the first is the connection's initial subflow); a subflow
	// that joined during the interval has its counters since it joined.
	Subflow []*TCP `json:"subflow"`

	// Sums keeps what Subflow was computed from, so tests merge exactly.
	Sums []TCPSums `json:"-"`
}

// MPTCPConn is one connection's reading: its subflows and whether it fell
// back, and each subflow's TCP_INFO over the interval.
type MPTCPConn struct {
	Subflows int
	Fallback bool
	Sums     []TCPSums // one per subflow
}

// Add adds one connection.
func (m *MPTCP) Add(c *MPTCPConn) {
	m.Connections++
	m.Subflows += uint64(c.Subflows)
	m.SubflowsMax = max(m.SubflowsMax, uint64(c.Subflows))
	if c.Fallback {
		m.Fallbacks++
	}
	for i := range c.Sums {
		if i >= len(m.Sums) {
			m.Sums = append(m.Sums, TCPSums{})
		}
		m.Sums[i].Merge(&c.Sums[i])
	}
	m.figures()
}

// Merge adds the connections of o (nil: none).
func (m *MPTCP) Merge(o *MPTCP) {
	if o == nil {
		return
	}
	m.Connections += o.Connections
	m.Subflows += o.Subflows
	m.SubflowsMax = max(m.SubflowsMax, o.SubflowsMax)
	m.Fallbacks += o.Fallbacks
	for i := range o.Sums {
		if i >= len(m.Sums) {
			m.Sums = append(m.Sums, TCPSums{})
		}
		m.Sums[i].Merge(&o.Sums[i])
	}
	m.figures()
}

// figures computes Subflow from Sums.
func (m *MPTCP) figures() {
	m.Subflow = make([]*TCP, len(m.Sums))
	for i := range m.Sums {
		m.Subflow[i] = TCPOf(&m.Sums[i])
	}
}

// MergeMPTCP is the MPTCP figures of several results' together; nil when
// none has any.
func MergeMPTCP(ms ...*MPTCP) *MPTCP {
	var out *MPTCP
	for _, m := range ms {
		if m == nil {
			continue
		}
		if out == nil {
			out = &MPTCP{}
		}
		out.Merge(m)
	}
	return out
}
