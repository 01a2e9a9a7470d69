package proto

import "fmt"

// TestSpec is the wire form of one test's description: what RunClient
// carries to the daemon that runs a test's client side. Its JSON names,
// their order and their types are frozen for protocol version 3 (doc.go):
// they are the ones the release before this type existed produced by
// encoding its spec.Spec, so the two understand each other, and a TestSpec
// encodes to the very bytes that release sent.
//
// A field here is a plain value of the wire: an int code, int64
// nanoseconds, a nullable int. What the codes mean to a test is
// spec.Spec's business; testspec_convert.go converts between the two.
type TestSpec struct {
	// Workload is the workload's code: 1 TCP_RR, 2 TCP_CRR, 3 UDP_RR,
	// 4 TCP_STREAM, 5 TCP_MAERTS, 6 UDP_STREAM, frozen forever; the
	// workload registry may give further workloads further codes. Which
	// codes are known is decided where a TestSpec is converted, not here.
	Workload         int    `json:"Workload"`
	Host             string `json:"Host"`           // the server's control address
	Port             int    `json:"Port"`           // the server's control port
	DurationNs       int64  `json:"Duration"`       // the test's length; 0 with a count
	Transactions     uint64 `json:"Transactions"`   // end after this many transactions
	Request          int    `json:"Request"`        // request size in bytes
	Response         int    `json:"Response"`       // response size in bytes
	Burst            int    `json:"Burst"`          // requests in flight beyond the first
	NoDelay          bool   `json:"NoDelay"`        // TCP_NODELAY on both ends
	Local            string `json:"Local"`          // source address to bind
	LocalPort        int    `json:"LocalPort"`      // source port to bind
	DataPort         int    `json:"DataPort"`       // the server's data port
	Family           Family `json:"Family"`         // the address family
	Brand            string `json:"Brand"`          // a tag carried into the result
	TimeoutNs        int64  `json:"Timeout"`        // UDP_RR loss timeout
	ConnectTimeoutNs int64  `json:"ConnectTimeout"` // bound on connecting at set-up

	SendSize int    `json:"SendSize"` // bytes per send call; 0: the default
	RecvSize int    `json:"RecvSize"` // bytes per receive call; 0: the default
	Bytes    uint64 `json:"Bytes"`    // end after this many bytes sent

	FastOpen bool `json:"FastOpen"` // TCP_CRR over TCP Fast Open
	CPUUtil  bool `json:"CPUUtil"`  // measure CPU on both ends

	SendBuffer       int `json:"SendBuffer"`       // SO_SNDBUF on the client; 0: the kernel's
	RecvBuffer       int `json:"RecvBuffer"`       // SO_RCVBUF on the client
	RemoteSendBuffer int `json:"RemoteSendBuffer"` // SO_SNDBUF on the server
	RemoteRecvBuffer int `json:"RemoteRecvBuffer"` // SO_RCVBUF on the server

	CPU       *int `json:"CPU"`       // the client's CPU; null: the scheduler's choice
	RemoteCPU *int `json:"RemoteCPU"` // the server's CPU; null: the scheduler's choice

	IntervalNs int64   `json:"Interval"` // period of interim samples; 0: none
	Rate       float64 `json:"Rate"`     // transactions (or sends) per second; 0: unpaced
	// Arrival is the open model's arrival schedule (spec.Spec.Arrival);
	// absent for the closed model, so such a test reads as the previous
	// release sent it, and a daemon of that release refuses a test that
	// sets it, naming the field.
	Arrival   *Arrival `json:"Arrival,omitempty"`
	NoControl bool     `json:"NoControl"` // no control connection (a standing data endpoint)

	Flows          int        `json:"Flows"`          // connections (UDP: flows) at once
	Locals         []string   `json:"Locals"`         // each flow's source address
	LocalPorts     []int      `json:"LocalPorts"`     // each flow's source port
	DataPorts      []int      `json:"DataPorts"`      // each flow's server data port
	LocalPortRange *PortRange `json:"LocalPortRange"` // TCP_CRR's walk of source ports

	// Client is the daemon that runs the client side; a daemon refuses a
	// TestSpec that names one (it does not hand the test on).
	Client string `json:"Client"`

	// Server is what answers at Host (spec.Spec.Server): absent for
	// netscript, so a test reads as the previous release sent it.
	Server string `json:"Server,omitempty"`

	// LivenessNs is the test's liveness option (spec.Spec.Liveness): 0
	// the default, -1 off. Absent when 0, so a default test reads as the
	// previous release sent it; a daemon of that release refuses a test
	// that sets it, naming the field.
	LivenessNs int64 `json:"Liveness,omitempty"`

	// Knobs are the socket knobs and tcp_crr's tcp_info
	// (spec.Spec.Knobs); absent when none is given, so such a test reads
	// as before.
	Knobs *Knobs `json:"Knobs,omitempty"`

	// Connections, File and Protocol are tcp_bidir's connections per
	// flow, tcp_sendfile's file and the TCP workloads' protocol ("mptcp");
	// absent when not given, so such a test reads as before.
	Connections int    `json:"Connections,omitempty"`
	File        string `json:"File,omitempty"`
	Protocol    string `json:"Protocol,omitempty"`
}

// PortRange is an inclusive range of ports on the wire.
type PortRange struct {
	Lo int `json:"Lo"`
	Hi int `json:"Hi"`
}

// Family is an address family's code on the wire.
type Family int

// The families, with codes frozen for version 3.
const (
	FamilyAuto  Family = 0 // whichever the address resolves to
	FamilyInet  Family = 1 // IPv4
	FamilyInet6 Family = 2 // IPv6
)

var familyNames = map[Family]string{FamilyAuto: "auto", FamilyInet: "inet", FamilyInet6: "inet6"}

// String names the family ("inet"), or gives its code if unknown.
func (f Family) String() string {
	if n, ok := familyNames[f]; ok {
		return n
	}
	return fmt.Sprintf("family(%d)", int(f))
}

// Known reports whether f is a family of this version.
func (f Family) Known() bool { _, ok := familyNames[f]; return ok }

// FieldError is a field of a message that holds a value the wire schema
// does not allow.
type FieldError struct {
	Field string // the JSON name ("Family")
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Check refuses what no release of version 3 can mean: a family that is
// not one of the three, a workload code below 1, a negative duration. It
// knows nothing of workloads: whether code 7 is one is for whoever
// converts the TestSpec to say.
func (t *TestSpec) Check() error {
	if !t.Family.Known() {
		return &FieldError{"Family", fmt.Sprintf("%d is not a family (0 auto, 1 inet, 2 inet6)", int(t.Family))}
	}
	if t.Workload < 1 {
		return &FieldError{"Workload", fmt.Sprintf("%d is not a workload code (codes start at 1)", t.Workload)}
	}
	for _, d := range []struct {
		name string
		ns   int64
	}{
		{"Duration", t.DurationNs},
		{"Timeout", t.TimeoutNs},
		{"ConnectTimeout", t.ConnectTimeoutNs},
		{"Interval", t.IntervalNs},
	} {
		if d.ns < 0 {
			return &FieldError{d.name, fmt.Sprintf("%d ns is negative", d.ns)}
		}
	}
	if t.LivenessNs < -1 {
		return &FieldError{"Liveness", fmt.Sprintf("%d ns is neither a bound nor -1 (off)", t.LivenessNs)}
	}
	if a := t.Arrival; a != nil {
		for i, st := range a.Ramp {
			if st.DurationNs < 0 {
				return &FieldError{"Arrival", fmt.Sprintf("stage %d: %d ns is negative", i+1, st.DurationNs)}
			}
		}
	}
	return nil
}

// Check checks the test the message carries.
func (m *RunClient) Check() error {
	if err := m.Test.Check(); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	return nil
}

// Arrival is the wire form of an open-model arrival schedule: the
// requests per second over all the flows (or the ramp's start), "constant"
// or "poisson" (absent: constant), and the ramp's stages. spec.Validate
// judges the values (rates, kinds, how many stages).
type Arrival struct {
	Rate float64        `json:"Rate"`
	Kind string         `json:"Kind,omitempty"`
	Ramp []ArrivalStage `json:"Ramp,omitempty"`
}

// ArrivalStage is one stage of an arrival ramp: the rate it moves to, and
// over how long (nanoseconds).
type ArrivalStage struct {
	Target     float64 `json:"Target"`
	DurationNs int64   `json:"Duration"`
}
