package spec

// The values of the protocol option.
const (
	ProtocolTCP   = "tcp"
	ProtocolMPTCP = "mptcp"
)

// MPTCP reports whether the test's data connections are MPTCP.
func (s *Spec) MPTCP() bool { return s.Protocol == ProtocolMPTCP }

// validateProtocol checks protocol: TCP or MPTCP, and MPTCP only where
// both ends can be asked for it.
func (s *Spec) validateProtocol() error {
	switch s.Protocol {
	case "", ProtocolTCP:
		return nil
	case ProtocolMPTCP:
	default:
		return bad(OptProtocol, "want %q or %q, got %q", ProtocolTCP, ProtocolMPTCP, s.Protocol)
	}
	if s.NoControl {
		return &OptionError{Option: OptProtocol, Err: ErrNeedsControl}
	}
	if s.Netserver() {
		return &NetserverUnsupportedError{Option: OptProtocol, Why: "netscript cannot ask a netserver for an MPTCP socket"}
	}
	return nil
}
