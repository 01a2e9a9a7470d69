package spec

import (
	"errors"
	"strings"
	"testing"
)

// TestRegistry: every workload is named once, has a code of its own, and can be found by either name.
func TestRegistry(t *testing.T) {
	names, codes := map[string]bool{}, map[int]bool{}
	for _, w := range Workloads() {
		if names[w.Name] {
			t.Errorf("%s: name %q used twice", w, w.Name)
		}
		names[w.Name] = true
		if w.Code < 1 || codes[w.Code] {
			t.Errorf("%s: code %d is not positive and its own", w, w.Code)
		}
		codes[w.Code] = true
		if w.Unit == "" || w.Short == "" {
			t.Errorf("%s: a descriptor without its documentation", w)
		}
		if w.Netperf != strings.ToUpper(w.Name) {
			t.Errorf("%s: netperf's name is not netscript's in capitals: %q", w, w.Name)
		}
		for _, name := range []string{w.Name, w.Netperf, strings.ToUpper(w.Name)} {
			if got, err := LookupWorkload(name); err != nil || got != w {
				t.Errorf("LookupWorkload(%q) = %v, %v", name, got, err)
			}
		}
		if got, err := WorkloadByCode(w.Code); err != nil || got != w {
			t.Errorf("WorkloadByCode(%d) = %v, %v", w.Code, got, err)
		}
		for _, o := range w.Takes {
			if _, ok := ruleOf(o); !ok {
				t.Errorf("%s takes %q, which is no workload-specific option", w, o)
			}
		}
		// Traits that only make sense together.
		switch {
		case w.ServerSends && !w.Bulk:
			t.Errorf("%s: the server sends, but the test is not bulk", w)
		case w.Messages && w.Bulk:
			t.Errorf("%s: bulk data with requests and responses", w)
		case w.PerTransaction && w.Datagram:
			t.Errorf("%s: a connection per transaction over UDP", w)
		}
		if err := func() error { s := Default(w); return s.Validate() }(); err != nil {
			t.Errorf("%s: its defaults do not validate: %v", w, err)
		}
	}
	if _, err := LookupWorkload("TCP_NOPE"); err == nil || !strings.Contains(err.Error(), "tcp_rr, tcp_crr") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := WorkloadByCode(0); err == nil {
		t.Error("code 0 found a workload")
	}
}

// TestFrozenCodes: the control protocol carries the workload's code; the
// first six are those of the iota enum of protocol version 3 and may never
// change.
func TestFrozenCodes(t *testing.T) {
	for code, name := range map[int]string{1: "TCP_RR", 2: "TCP_CRR", 3: "UDP_RR", 4: "TCP_STREAM", 5: "TCP_MAERTS", 6: "UDP_STREAM", 7: "TCP_CC"} {
		if w, err := WorkloadByCode(code); err != nil || w.Netperf != name {
			t.Errorf("code %d is %v (%v), want %s", code, w, err, name)
		}
	}
}

// TestValidateOptions: a workload-specific option given to a workload that
// does not take it is refused, naming the workloads that do.
func TestValidateOptions(t *testing.T) {
	for _, c := range []struct {
		w    *Workload
		set  func(s *Spec)
		opt  string
		want string
	}{
		{TCPCRR, func(s *Spec) { s.Burst = 2 }, OptBurst, "burst: does not apply to tcp_crr: it applies only to tcp_rr and udp_rr"},
		{TCPRR, func(s *Spec) { s.FastOpen = true }, OptFastOpen, "it applies only to tcp_crr, which opens a connection per transaction"},
		{TCPCC, func(s *Spec) { s.Request = 10 }, OptRequest, "request: does not apply to tcp_cc: it applies only to tcp_rr, tcp_crr and udp_rr"},
		{TCPCC, func(s *Spec) { s.FastOpen = true }, OptFastOpen, "does not apply to tcp_cc"},
		{TCPStream, func(s *Spec) { s.Transactions = 5 }, OptTransactions, "transactions: does not apply to tcp_stream"},
		{TCPRR, func(s *Spec) { s.Bytes = 5 }, OptBytes, "it applies only to tcp_stream, tcp_maerts and udp_stream"},
		{UDPRR, func(s *Spec) { s.NoDelay = true }, OptNoDelay, "nodelay: does not apply to udp_rr"},
		{TCPRR, func(s *Spec) { s.Timeout = 5 }, OptTimeout, "timeout: does not apply to tcp_rr: it applies only to udp_rr"},
		{UDPRR, func(s *Spec) { s.LocalPortRange = &PortRange{5000, 5010} }, OptLocalPorts, "it applies only to tcp_crr and tcp_cc"},
	} {
		s := Default(c.w)
		c.set(&s)
		err := s.Validate()
		var na *NotApplicableError
		if !errors.As(err, &na) || na.Option != c.opt || na.Workload != c.w || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %s: got %v, want a NotApplicableError with %q", c.w, c.opt, err, c.want)
		}
	}
	// TCP_CC takes what a connection per transaction takes.
	s := Default(TCPCC)
	s.Transactions, s.Duration, s.LocalPortRange, s.Flows = 100, 0, &PortRange{5000, 5010}, 8
	if err := s.Validate(); err != nil {
		t.Errorf("tcp_cc with transactions, local_ports and flows: %v", err)
	}
	if !s.Multiplexed() {
		t.Error("8 tcp_cc flows are not multiplexed")
	}
}

// TestNeedsControl: the causes a front end turns into its own advice are
// there to find.
func TestNeedsControl(t *testing.T) {
	s := Default(TCPRR)
	s.NoControl = true
	if err := s.Validate(); !errors.Is(err, ErrNeedsDataPort) {
		t.Errorf("no data port: %v", err)
	}
	m := Default(TCPMaerts)
	m.NoControl, m.DataPort, m.SendSize = true, 9, 100
	var oe *OptionError
	if err := m.Validate(); !errors.Is(err, ErrNeedsControl) || !errors.As(err, &oe) || oe.Option != "send_size" {
		t.Errorf("send_size without control: %v", err)
	}
}
