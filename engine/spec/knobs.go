package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"netscript/engine/sock"
)

// The socket knobs: options set on the data sockets of both ends (the
// sending end only for max_pacing_rate), reported back in config, and the
// option that turns tcp_crr's per-connection TCP_INFO on.
const (
	OptCongestion    = "congestion"
	OptMaxPacingRate = "max_pacing_rate"
	OptTOS           = "tos"
	OptNotsentLowat  = "notsent_lowat"
	OptMSS           = "mss"
	OptBusyPoll      = "busy_poll"
	OptCork          = "cork"
	OptQuickAck      = "quickack"
	OptTCPInfo       = "tcp_info"
	OptZeroCopy      = "zerocopy"
)

// Bounds of the knobs' values.
const (
	MaxPacingRate   = 1 << 50 // bits/s: about a petabit
	MaxNotsentLowat = 1 << 30
	MinMSS, MaxMSS  = 88, 65535 // the kernel's TCP_MIN_MSS and its limit
	MaxBusyPoll     = 1_000_000 // µs
)

// knobRule is one socket knob: how CheckKnobs tells that it was given,
// and, for a knob only some workloads take (those that list it in
// Workload.TakesKnobs), how its refusal names them and says why.
type knobRule struct {
	name  string
	given func(k *sock.Knobs) bool
	// every: every workload takes the knob, and none lists it.
	every bool
	// takers, if set, names the workloads that take the knob by their kind
	// ("TCP tests"; TestKnobKinds checks it against their traits); "":
	// the registry lists them by name.
	takers string
	// why follows the takers in the refusal.
	why string
}

var knobRules = []knobRule{
	{name: OptCongestion, given: func(k *sock.Knobs) bool { return k.Congestion != "" }, takers: "TCP tests", why: ": UDP has no congestion control"},
	{name: OptMaxPacingRate, given: func(k *sock.Knobs) bool { return k.MaxPacingRate != 0 }, every: true},
	{name: OptTOS, given: func(k *sock.Knobs) bool { return k.HasTOS }, every: true},
	{name: OptNotsentLowat, given: func(k *sock.Knobs) bool { return k.NotsentLowat != 0 }, takers: "TCP tests", why: " (TCP_NOTSENT_LOWAT)"},
	{name: OptMSS, given: func(k *sock.Knobs) bool { return k.MSS != 0 }, takers: "TCP tests", why: " (TCP_MAXSEG)"},
	{name: OptBusyPoll, given: func(k *sock.Knobs) bool { return k.BusyPoll != 0 }, every: true},
	{name: OptCork, given: func(k *sock.Knobs) bool { return k.Cork }, why: " (TCP_CORK)"},
	{name: OptQuickAck, given: func(k *sock.Knobs) bool { return k.QuickAck },
		why: " (TCP_QUICKACK, re-armed after each receive): a connection per transaction starts in quick-ack mode, so it would change nothing"},
	{name: OptTCPInfo, given: func(k *sock.Knobs) bool { return k.TCPInfo }, why: ": the other TCP tests read TCP_INFO always, outside their loops"},
	{name: OptZeroCopy, given: func(k *sock.Knobs) bool { return k.ZeroCopy }, takers: "stream tests", why: " (MSG_ZEROCOPY on the sending end)"},
}

// TakesKnob reports whether w takes the socket knob called name: a knob
// every workload takes, or one w lists in TakesKnobs.
func (w *Workload) TakesKnob(name string) bool {
	for _, r := range knobRules {
		if r.name == name && !r.every {
			return slices.Contains(w.TakesKnobs, name)
		}
	}
	return true
}

// KnobTakers names the workloads that take the socket knob called name,
// in the registry's order.
func KnobTakers(name string) []string {
	var names []string
	for _, w := range Workloads() {
		if w.TakesKnob(name) {
			names = append(names, w.Name)
		}
	}
	return names
}

// appliesTo says which workloads take the knob of r, and why the others
// do not: "tcp_stream and tcp_maerts (TCP_CORK)".
func (r *knobRule) appliesTo() string {
	if r.takers != "" {
		return r.takers + r.why
	}
	return joinAnd(KnobTakers(r.name)) + r.why
}

// validateKnobs checks the knobs, and that a test without a control
// connection or against a netserver sets none the far end cannot take.
func (s *Spec) validateKnobs() error {
	k := &s.Knobs
	if err := CheckKnobs(s.Workload, k); err != nil {
		return err
	}
	if k.ZeroCopy && (s.Multiplexed() || s.Workload.ServerSends && s.FlowCount() > ThreadedFlows) {
		return bad(OptZeroCopy, "not with %d flows: the sender of more than %d flows runs them multiplexed, without MSG_ZEROCOPY", s.FlowCount(), ThreadedFlows)
	}
	if s.NoControl && k.Given() {
		for _, r := range knobRules {
			if r.given(k) && !clientOnly(r.name) {
				return &OptionError{Option: r.name, Err: ErrNeedsControl}
			}
		}
	}
	if s.Netserver() {
		for _, r := range knobRules {
			if r.given(k) && !clientOnly(r.name) { // tcp_info is the client's own
				return &NetserverUnsupportedError{Option: r.name, Why: "netscript cannot ask a netserver to set it on its end"}
			}
		}
	}
	return nil
}

// CheckKnobs checks knobs for workload w, as the client and the server
// both do: that w takes each one given and that its value is in range.
func CheckKnobs(w *Workload, k *sock.Knobs) error {
	for _, r := range knobRules {
		if r.given(k) && !w.TakesKnob(r.name) {
			return bad(r.name, "does not apply to %s: it applies only to %s", w.Name, r.appliesTo())
		}
	}
	switch {
	case k.Congestion != "" && !validCongestion(k.Congestion):
		return bad(OptCongestion, "want an algorithm's name such as \"cubic\" (at most 15 letters, digits, _ or -), got %q", k.Congestion)
	case k.MaxPacingRate > MaxPacingRate:
		return bad(OptMaxPacingRate, "at most %d bits/s, got %d", uint64(MaxPacingRate), k.MaxPacingRate)
	case k.HasTOS && (k.TOS < 0 || k.TOS > 255):
		return bad(OptTOS, "want a byte 0-255 (a DSCP value d is d<<2), got %d", k.TOS)
	case k.NotsentLowat < 0 || k.NotsentLowat > MaxNotsentLowat:
		return bad(OptNotsentLowat, "want 1-%d bytes, got %d", MaxNotsentLowat, k.NotsentLowat)
	case k.MSS != 0 && (k.MSS < MinMSS || k.MSS > MaxMSS):
		return bad(OptMSS, "want %d-%d bytes, got %d", MinMSS, MaxMSS, k.MSS)
	case k.BusyPoll < 0 || k.BusyPoll > MaxBusyPoll:
		return bad(OptBusyPoll, "want 1-%d µs, got %d", MaxBusyPoll, k.BusyPoll)
	}
	return nil
}

func validCongestion(name string) bool {
	if len(name) > 15 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ParseRate reads a rate in bits/s: a number, or one with a k, M, G or T
// suffix (powers of 1000, as iperf3 and neper read them): "100M".
func ParseRate(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult = 1e3
		case 'm', 'M':
			mult = 1e6
		case 'g', 'G':
			mult = 1e9
		case 't', 'T':
			mult = 1e12
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*mult > MaxPacingRate {
		return 0, fmt.Errorf("want bits/s as a number or with k, M, G or T (\"100M\"), at most %d, got %q", uint64(MaxPacingRate), s)
	}
	return uint64(f * mult), nil
}

// clientOnly reports whether a knob is the client's alone, which the far
// end need not know of (zerocopy is not: tcp_maerts's server sends).
func clientOnly(name string) bool { return name == OptTCPInfo }
