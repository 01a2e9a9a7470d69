package proto

import (
	"errors"

	"netscript/engine/result"
	"netscript/engine/sock"
)

// KnobsFrom is the wire form of a test's knobs, nil when none is given.
func KnobsFrom(k *sock.Knobs) *Knobs {
	if !k.Given() && !k.TCPInfo && !k.ZeroCopy {
		return nil
	}
	w := &Knobs{Congestion: k.Congestion, MaxPacingRate: k.MaxPacingRate, NotsentLowat: k.NotsentLowat, MSS: k.MSS,
		BusyPoll: k.BusyPoll, Cork: k.Cork, QuickAck: k.QuickAck, TCPInfo: k.TCPInfo, ZeroCopy: k.ZeroCopy}
	if k.HasTOS {
		tos := k.TOS
		w.TOS = &tos
	}
	return w
}

// Sock is the knobs as the data path sets them (the zero Knobs for nil).
func (k *Knobs) Sock() sock.Knobs {
	if k == nil {
		return sock.Knobs{}
	}
	s := sock.Knobs{Congestion: k.Congestion, MaxPacingRate: k.MaxPacingRate, NotsentLowat: k.NotsentLowat, MSS: k.MSS,
		BusyPoll: k.BusyPoll, Cork: k.Cork, QuickAck: k.QuickAck, TCPInfo: k.TCPInfo, ZeroCopy: k.ZeroCopy}
	if k.TOS != nil {
		s.TOS, s.HasTOS = *k.TOS, true
	}
	return s
}

// TCPSumsFrom is the wire form of s, nil when no connection was read.
func TCPSumsFrom(s *result.TCPSums) *TCPSums {
	if s == nil || s.Conns == 0 {
		return nil
	}
	w := TCPSums(*s)
	return &w
}

// Result is the sums as results keep them.
func (t *TCPSums) Result() *result.TCPSums {
	if t == nil {
		return nil
	}
	r := result.TCPSums(*t)
	return &r
}

// TCPInfoRefused reports whether err is a server's refusal of a Setup
// because it does not know Setup.TCPInfo (a release before it); the
// client then asks again without it.
func TCPInfoRefused(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && re.Message == refusedField(TypeSetup, "tcp_info")
}
