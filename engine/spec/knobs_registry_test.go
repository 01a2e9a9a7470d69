package spec

import (
	"slices"
	"strings"
	"testing"

	"netscript/engine/sock"
)

// TestKnobTakers: which workloads take each knob comes from the
// descriptors' TakesKnobs, and is what it was when predicates on the
// traits decided it.
func TestKnobTakers(t *testing.T) {
	ip := []string{"tcp_rr", "tcp_crr", "udp_rr", "tcp_stream", "tcp_maerts", "udp_stream", "tcp_cc", "tcp_bidir", "tcp_sendfile"}
	tcp := []string{"tcp_rr", "tcp_crr", "tcp_stream", "tcp_maerts", "tcp_cc", "tcp_bidir", "tcp_sendfile"}
	for _, c := range []struct {
		knob string
		want []string
	}{
		{OptCongestion, tcp},
		{OptMaxPacingRate, ip},
		{OptTOS, ip},
		{OptNotsentLowat, tcp},
		{OptMSS, tcp},
		{OptBusyPoll, ip},
		{OptCork, []string{"tcp_stream", "tcp_maerts", "tcp_bidir", "tcp_sendfile"}},
		{OptQuickAck, []string{"tcp_rr"}},
		{OptTCPInfo, []string{"tcp_crr", "tcp_cc"}},
		{OptZeroCopy, []string{"tcp_stream", "tcp_maerts", "udp_stream"}},
		{"nodelay", WorkloadNames()}, // not a knob: TakesKnob has nothing against it
	} {
		if got := KnobTakers(c.knob); !slices.Equal(got, c.want) {
			t.Errorf("%s: taken by %v, want %v", c.knob, got, c.want)
		}
	}
}

// TestKnobKinds: a knob whose refusal names its takers by a kind ("TCP
// tests") is taken by exactly the workloads of that kind, so a workload
// whose descriptor forgets a knob (or lists one it should not) fails here;
// and every knob a descriptor lists is one that only some workloads take.
func TestKnobKinds(t *testing.T) {
	kinds := map[string]func(w *Workload) bool{
		"TCP tests":     func(w *Workload) bool { return !w.Datagram && !w.Unix },
		"tests over IP": func(w *Workload) bool { return !w.Unix },
	}
	for _, r := range knobRules {
		if r.takers == "" {
			continue
		}
		of, ok := kinds[r.takers]
		if !ok {
			t.Errorf("%s: no check of the kind %q", r.name, r.takers)
			continue
		}
		for _, w := range Workloads() {
			if w.TakesKnob(r.name) != of(w) {
				t.Errorf("%s takes %s: %v; it is one of the %s: %v", w.Name, r.name, w.TakesKnob(r.name), r.takers, of(w))
			}
		}
	}
	for _, w := range Workloads() {
		for _, k := range w.TakesKnobs {
			i := slices.IndexFunc(knobRules, func(r knobRule) bool { return r.name == k })
			if i < 0 || knobRules[i].every {
				t.Errorf("%s lists %q in TakesKnobs, which is not a knob only some workloads take", w.Name, k)
			}
		}
	}
}

// TestKnobRefusals: a knob given to a workload that does not take it is
// refused with the option's name, the workload, and which workloads take
// it (named by the registry, or by their kind) and why.
func TestKnobRefusals(t *testing.T) {
	for _, c := range []struct {
		w    *Workload
		k    sock.Knobs
		want string
	}{
		{UDPStream, sock.Knobs{Congestion: "cubic"}, "congestion: does not apply to udp_stream: it applies only to TCP tests: UDP has no congestion control"},
		{UDPRR, sock.Knobs{MSS: 1000}, "mss: does not apply to udp_rr: it applies only to TCP tests (TCP_MAXSEG)"},
		{TCPRR, sock.Knobs{Cork: true}, "cork: does not apply to tcp_rr: it applies only to tcp_stream, tcp_maerts, tcp_bidir and tcp_sendfile (TCP_CORK)"},
		{TCPCC, sock.Knobs{QuickAck: true}, "quickack: does not apply to tcp_cc: it applies only to tcp_rr (TCP_QUICKACK, re-armed after each receive): " +
			"a connection per transaction starts in quick-ack mode, so it would change nothing"},
		{TCPStream, sock.Knobs{TCPInfo: true}, "tcp_info: does not apply to tcp_stream: it applies only to tcp_crr and tcp_cc: " +
			"the other TCP tests read TCP_INFO always, outside their loops"},
		{TCPCRR, sock.Knobs{ZeroCopy: true}, "zerocopy: does not apply to tcp_crr: it applies only to tcp_stream, tcp_maerts and udp_stream (MSG_ZEROCOPY on the sending end)"},
		{UnixRR, sock.Knobs{HasTOS: true}, "tos: does not apply to unix_rr: it applies only to tests over IP"},
		{UnixStream, sock.Knobs{Congestion: "cubic"}, "congestion: does not apply to unix_stream: it applies only to TCP tests"},
		{UDPRR, sock.Knobs{HasTOS: true, TOS: 300}, "tos: want a byte 0-255"}, // taken by every workload: only its range is checked
	} {
		err := CheckKnobs(c.w, &c.k)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %+v: %v, want %q", c.w.Name, c.k, err, c.want)
		}
	}
	for _, w := range Workloads() {
		k := sock.Knobs{MaxPacingRate: 1e6, HasTOS: true, TOS: 4, BusyPoll: 50}
		if err := CheckKnobs(w, &k); (err != nil) != w.Unix {
			t.Errorf("%s with the knobs every workload over IP takes: %v", w.Name, err)
		}
	}
}
