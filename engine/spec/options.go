package spec

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultLiveness is how long a test runs on with no progress on its data
// connections or nothing from the server, when the liveness option is not
// given.
const DefaultLiveness = 3 * time.Second

// LivenessOff, as Spec.Liveness, turns the liveness checks off (the
// liveness option 0).
const LivenessOff time.Duration = -1

// MinLiveness and MaxLiveness bound the liveness option.
const (
	MinLiveness = time.Second
	MaxLiveness = 10 * time.Minute
)

// LivenessBound is the test's liveness bound, and false when the checks
// are off.
func (s *Spec) LivenessBound() (time.Duration, bool) {
	switch s.Liveness {
	case 0:
		return DefaultLiveness, true
	case LivenessOff:
		return 0, false
	}
	return s.Liveness, true
}

// validateLiveness checks the liveness option.
func (s *Spec) validateLiveness() error {
	if d := s.Liveness; d != 0 && d != LivenessOff && (d < MinLiveness || d > MaxLiveness) {
		return bad("liveness", "must be 0 (off) or between %v and %v, got %v", MinLiveness, MaxLiveness, d)
	}
	return nil
}

// The names of the options only some workloads take (Workload.Takes). Every
// other option applies to every workload. Errors name options by these
// names, and the front ends call their options so.
const (
	OptTransactions = "transactions"
	OptRequest      = "request"
	OptResponse     = "response"
	OptBurst        = "burst"
	OptNoDelay      = "nodelay"
	OptTimeout      = "timeout"
	OptFastOpen     = "fastopen"
	OptLocalPorts   = "local_ports"
	OptSendSize     = "send_size"
	OptRecvSize     = "recv_size"
	OptBytes        = "bytes"
	OptConnections  = "connections"
	OptFile         = "file"
	OptProtocol     = "protocol"
)

// optionRule is one workload-specific option: how Validate tells that it
// was given, and why the workloads that do not take it do not.
type optionRule struct {
	name  string
	given func(s *Spec) bool
	// why follows "it applies only to <the workloads that take it>";
	// "" says nothing more.
	why string
}

// optionRules holds every workload-specific option, in the order Validate
// checks them.
var optionRules = []optionRule{
	{OptTransactions, func(s *Spec) bool { return s.Transactions > 0 }, ", which count transactions; bulk tests end by bytes"},
	{OptRequest, func(s *Spec) bool { return s.Request != 0 }, ", whose transactions carry a request"},
	{OptResponse, func(s *Spec) bool { return s.Response != 0 }, ", whose transactions carry a response"},
	{OptBurst, func(s *Spec) bool { return s.Burst != 0 }, ", which keep one connection (or socket) and can have several requests in flight on it"},
	{OptNoDelay, func(s *Spec) bool { return s.NoDelay }, ", which run over TCP"},
	{OptTimeout, func(s *Spec) bool { return s.Timeout != 0 }, ", whose lost datagrams would otherwise stop a transaction"},
	{OptFastOpen, func(s *Spec) bool { return s.FastOpen }, ", which opens a connection per transaction"},
	{OptLocalPorts, func(s *Spec) bool { return s.LocalPortRange != nil }, ", which open a connection per transaction; " +
		"give the other tests' flows their ports with a list for local_port"},
	{OptSendSize, func(s *Spec) bool { return s.SendSize != 0 }, " (stream tests); request/response tests have request and response"},
	{OptRecvSize, func(s *Spec) bool { return s.RecvSize != 0 }, " (stream tests); request/response tests have request and response"},
	{OptBytes, func(s *Spec) bool { return s.Bytes != 0 }, " (stream tests); request/response tests end by transactions"},
	{OptConnections, func(s *Spec) bool { return s.Connections != 0 }, ", whose data goes both ways: on one connection or on one per direction"},
	{OptFile, func(s *Spec) bool { return s.File != "" }, ", which sends with sendfile(2) from a file"},
	{OptProtocol, func(s *Spec) bool { return s.Protocol != "" }, ", which run over TCP (or MPTCP)"},
	{OptArrivalRate, func(s *Spec) bool { return s.Arrival.Rate != 0 }, ", whose requests can arrive on a schedule of their own"},
	{OptArrival, func(s *Spec) bool { return s.Arrival.Kind != "" }, ", whose requests can arrive on a schedule of their own"},
	{OptArrivalRamp, func(s *Spec) bool { return len(s.Arrival.Ramp) > 0 }, ", whose requests can arrive on a schedule of their own"},
}

// ruleOf returns the rule of the workload-specific option called name.
func ruleOf(name string) (optionRule, bool) {
	for _, r := range optionRules {
		if r.name == name {
			return r, true
		}
	}
	return optionRule{}, false
}

// NotApplicableError is an option given to a workload that does not take
// it.
type NotApplicableError struct {
	Option   string
	Workload *Workload
}

// Error says that the option does not apply, which workloads take it,
// and why; an OptionError around it names the option.
func (e *NotApplicableError) Error() string {
	return fmt.Sprintf("does not apply to %s: %s", e.Workload.Name, e.Reason())
}

// Reason says which workloads take the option, and why the others do not.
func (e *NotApplicableError) Reason() string {
	var names []string
	for _, w := range Takers(e.Option) {
		names = append(names, w.Name)
	}
	r, _ := ruleOf(e.Option)
	return "it applies only to " + joinAnd(names) + r.why
}

// joinAnd lists names as "a", "a and b" or "a, b and c".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return "no test"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// validateOptions refuses a workload-specific option the workload does not
// take.
func (s *Spec) validateOptions() error {
	for _, r := range optionRules {
		if !s.Workload.Accepts(r.name) && r.given(s) {
			return &OptionError{Option: r.name, Err: &NotApplicableError{Option: r.name, Workload: s.Workload}}
		}
	}
	return nil
}

// OptionError is a bad value of one option: which option, and why (the
// cause may be a *NotApplicableError, ErrNeedsControl, ErrNeedsDataPort or
// a plain description).
type OptionError struct {
	Option string
	Err    error
}

// Error names the option and the cause.
func (e *OptionError) Error() string { return e.Option + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }

// ErrNeedsControl is the cause of an option that only a control connection
// can carry to the server, given to a test without one.
var ErrNeedsControl = errors.New("needs a control connection to reach the server")

// ErrNeedsDataPort is the cause of a test without a control connection that
// does not say where the standing data endpoint is.
var ErrNeedsDataPort = errors.New("a test without a control connection needs data_port: the port of a standing data endpoint")

// bad is an OptionError with a described cause.
func bad(opt, format string, args ...any) error {
	return &OptionError{Option: opt, Err: fmt.Errorf(format, args...)}
}

// Bad is an OptionError for option with a described cause, for callers that
// check an option the way Validate does.
func Bad(option, format string, args ...any) error { return bad(option, format, args...) }
