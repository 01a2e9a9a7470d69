package workloads

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/spec"
	"netscript/starlib/module"
)

// The socket knobs (engine/spec/knobs.go): options every workload lists,
// which spec.Validate refuses on a workload they do not apply to.
var knobOptions = []option{
	{spec.OptCongestion, "the kernel's", "TCP_CONGESTION on the data sockets of both ends (netperf -K): \"cubic\", \"bbr\", \"reno\"; " +
		"an algorithm a kernel does not offer is refused with its net.ipv4.tcp_available_congestion_control",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.Congestion, err = toString(v); return }},
	{spec.OptMaxPacingRate, "none", "SO_MAX_PACING_RATE on the sending end, in bits/s or a string such as \"100M\" (neper -m, iperf3 --fq-rate)",
		func(s *spec.Spec, v starlark.Value) error {
			if str, ok := starlark.AsString(v); ok {
				r, err := spec.ParseRate(str)
				s.Knobs.MaxPacingRate = r
				return err
			}
			n, err := toInt(v, 1, spec.MaxPacingRate)
			s.Knobs.MaxPacingRate = uint64(n)
			return err
		}},
	{spec.OptTOS, "the kernel's", "IP_TOS (IPV6_TCLASS) on the data sockets of both ends: the byte, 0-255 (DSCP d is d<<2)",
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.Knobs.TOS, err = toInt(v, -anyInt, anyInt)
			s.Knobs.HasTOS = true
			return
		}},
	{spec.OptNotsentLowat, "none", "TCP_NOTSENT_LOWAT in bytes on both ends",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.NotsentLowat, err = toKnobInt(v); return }},
	{spec.OptMSS, "the kernel's", "TCP_MAXSEG in bytes, set before connect (and on the server's listener)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.MSS, err = toKnobInt(v); return }},
	{spec.OptBusyPoll, "none", "SO_BUSY_POLL in µs on the data sockets of both ends",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.BusyPoll, err = toKnobInt(v); return }},
	{spec.OptCork, "False", "TCP_CORK on the data sockets of " + module.AndList(spec.KnobTakers(spec.OptCork)) + ", both ends",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.Cork, err = toBool(v); return }},
	{spec.OptQuickAck, "False", "TCP_QUICKACK on " + module.AndList(spec.KnobTakers(spec.OptQuickAck)) + ", both ends, re-armed after each receive " +
		"(one more system call per transaction on each end), " + multiplexedToo(),
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.QuickAck, err = toBool(v); return }},
	{spec.OptTCPInfo, "False", strings.Join(spec.KnobTakers(spec.OptTCPInfo), ", ") + ": read TCP_INFO of every connection just before it closes, on both ends, " +
		"into result.tcp and result.remote.tcp (one more system call per transaction), " + multiplexedToo() + "; " +
		"the other TCP tests always read it, outside their loops",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.TCPInfo, err = toBool(v); return }},
	{spec.OptZeroCopy, "False", strings.Join(spec.KnobTakers(spec.OptZeroCopy), ", ") + ": send with MSG_ZEROCOPY (SO_ZEROCOPY) on the sending end, reading the completions from the error queue; " +
		"result.zerocopy counts the sends, the completions and those the kernel copied after all (as it does on loopback)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Knobs.ZeroCopy, err = toBool(v); return }},
}

// toKnobInt reads a knob's integer; 0 (unset) is refused as given, since
// it would read as the knob left out.
func toKnobInt(v starlark.Value) (int, error) {
	n, err := toInt(v, -anyInt, anyInt)
	if err == nil && n == 0 {
		return 0, fmt.Errorf("must be positive, got 0 (leave the option out for the kernel's default)")
	}
	return n, err
}

// multiplexedToo says that a knob holds for the flows past
// spec.ThreadedFlows too, which run on epoll threads.
func multiplexedToo() string {
	return fmt.Sprintf("multiplexed flows (more than %d) too", spec.ThreadedFlows)
}
