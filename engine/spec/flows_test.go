package spec

import (
	"strings"
	"testing"
)

// TestValidateFlows: every bad combination of flows and the per-flow
// options is an error that names the option.
func TestValidateFlows(t *testing.T) {
	for _, c := range []struct {
		name string
		w    *Workload
		set  func(s *Spec)
		want string // "" for valid
	}{
		{"one flow", TCPRR, func(s *Spec) {}, ""},
		{"many tcp_rr flows", TCPRR, func(s *Spec) { s.Flows = MaxFlows }, ""},
		{"zero flows", TCPRR, func(s *Spec) { s.Flows = 0 }, "flows: must be at least 1, got 0"},
		{"too many", TCPCRR, func(s *Spec) { s.Flows = MaxFlows + 1 }, "flows: must be at most 4096"},
		{"too many threads", UDPRR, func(s *Spec) { s.Flows = MaxThreadFlows + 1 }, "flows: must be at most 256 for udp_rr, which runs a thread per flow on each end (tcp_rr, tcp_crr, tcp_cc, unix_rr and unix_crr take up to 4096)"},
		{"rate needs threads", TCPRR, func(s *Spec) { s.Flows, s.Rate = 300, 10 }, "flows: must be at most 256 with rate"},
		{"a list per flow", TCPRR, func(s *Spec) { s.Flows, s.Locals = 2, []string{"127.0.0.1", "127.0.0.2"} }, ""},
		{"short local list", TCPRR, func(s *Spec) { s.Flows, s.Locals = 3, []string{"127.0.0.1"} }, "local: a list of 1 addresses for 3 flows: give one per flow"},
		{"long local_port list", UDPRR, func(s *Spec) { s.Flows, s.LocalPorts = 1, []int{5000, 5001} }, "local_port: a list of 2 ports for 1 flow"},
		{"data_port list", TCPStream, func(s *Spec) { s.Flows, s.DataPorts = 2, []int{9} }, "data_port: a list of 1 ports for 2 flows"},
		{"data port 0 in a list", TCPRR, func(s *Spec) { s.Flows, s.DataPorts = 2, []int{9, 0} }, "data_port: [1]: must be between 1 and 65535"},
		{"one source port for several flows", TCPCRR, func(s *Spec) { s.Flows, s.LocalPort = 2, 5000 }, "local_port: 2 flows cannot share source port 5000"},
		{"port walk", TCPCRR, func(s *Spec) { s.Flows, s.LocalPortRange = 4, &PortRange{5000, 5003} }, ""},
		{"walk too short", TCPCRR, func(s *Spec) { s.Flows, s.LocalPortRange = 4, &PortRange{5000, 5002} }, "local_ports: (5000, 5002) holds 3 ports for 4 flows"},
		{"walk upside down", TCPCRR, func(s *Spec) { s.LocalPortRange = &PortRange{6000, 5000} }, "local_ports: want (lo, hi)"},
		{"walk on tcp_rr", TCPRR, func(s *Spec) { s.LocalPortRange = &PortRange{5000, 5010} }, "local_ports: does not apply to tcp_rr: it applies only to tcp_crr and tcp_cc"},
		{"walk and a port", TCPCRR, func(s *Spec) { s.LocalPort, s.LocalPortRange = 7, &PortRange{5000, 5010} }, "local_ports: give local_port or local_ports"},
		{"client without host", TCPRR, func(s *Spec) { s.Client = "198.18.0.1" }, "client: needs host"},
	} {
		s := Default(c.w)
		c.set(&s)
		err := s.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestMultiplexed: many tcp_rr and tcp_crr flows go to epoll threads,
// unless an option needs a thread per flow.
func TestMultiplexed(t *testing.T) {
	s := Default(TCPRR)
	if s.Multiplexed() {
		t.Error("one flow multiplexed")
	}
	s.Flows = ThreadedFlows + 1
	if !s.Multiplexed() {
		t.Error("many tcp_rr flows not multiplexed")
	}
	s.Interval = 1
	if s.Multiplexed() {
		t.Error("multiplexed with interval")
	}
	u := Default(UDPRR)
	u.Flows = 100
	if u.Multiplexed() {
		t.Error("udp_rr multiplexed")
	}
}
