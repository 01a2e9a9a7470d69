package workloads

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/internal/nearest"
	"netscript/starlib/module"
	"netscript/starlib/values"
)

// option is one keyword option of the workload builtins: its name, its
// default as help() shows it, what it means, and how it is stored in a
// Spec. Which workloads take it is the workload's to say
// (spec.Workload.Accepts). A setter converts the Starlark value; the ranges
// are spec.Validate's, so a setter refuses only what a Spec cannot tell
// from an option left out (an explicit 0 for a size, a rate, an interval).
type option struct {
	name string
	def  string
	doc  string
	set  func(s *spec.Spec, v starlark.Value) error
}

// anyInt is the range of toInt that leaves the bounds to spec.Validate.
const anyInt = math.MaxInt32

// options is the table of every workload option, in the order help() lists
// them: the options of a test, the open model's, then the socket knobs.
var options = append(append(testOptions[:len(testOptions):len(testOptions)], arrivalOptions...), knobOptions...)

// testOptions are the options of a test that are not socket knobs.
var testOptions = []option{
	{"host", "embedded loopback server", "the server's control address (netperf -H)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Host, err = toString(v); return }},
	{"port", fmt.Sprint(spec.DefaultControlPort), "the server's control port (netperf -p)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Port, err = toInt(v, -anyInt, anyInt); return }},
	{"duration", "10s", "length of the measured interval: seconds, or a string such as \"10s\", \"250ms\" (netperf -l)",
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.Duration, err = toDuration(v)
			if err == nil && s.Duration == 0 {
				err = fmt.Errorf("must be positive, got %v", s.Duration) // 0 would mean "by count"
			}
			return
		}},
	{"transactions", "none", "a count of transactions to end after, per flow (as each flow is one netperf), instead of a duration (netperf -l -N)",
		func(s *spec.Spec, v starlark.Value) error {
			n, err := toInt(v, 1, math.MaxInt64)
			s.Transactions = uint64(n)
			return err
		}},
	{"request", "1", "request size in bytes (netperf -- -r req,)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Request, err = toSize(v); return }},
	{"response", "1", "response size in bytes (netperf -- -r ,resp)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Response, err = toSize(v); return }},
	{"burst", "0", "requests kept in flight beyond the first (netperf -- -b); use nodelay=True with TCP",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Burst, err = toInt(v, -anyInt, anyInt); return }},
	{"nodelay", "False", "TCP_NODELAY on both ends (netperf -- -D)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.NoDelay, err = toBool(v); return }},
	{"local", "kernel's choice", "the source address the data socket(s) bind to (netperf -- -L); a list gives each flow its own",
		func(s *spec.Spec, v starlark.Value) (err error) {
			if l, ok := v.(starlark.Indexable); ok && !isString(v) {
				s.Locals, err = listOf(l, "an address", toString)
				return
			}
			s.Local, err = toString(v)
			return
		}},
	{"local_port", "kernel's choice", "the source port the data socket(s) bind to (netperf -- -P port,); a list gives each flow its own",
		func(s *spec.Spec, v starlark.Value) (err error) {
			if l, ok := v.(starlark.Indexable); ok && !isString(v) {
				s.LocalPorts, err = listOf(l, "a port", func(v starlark.Value) (int, error) { return toInt(v, -anyInt, anyInt) })
				return
			}
			s.LocalPort, err = toInt(v, -anyInt, anyInt)
			return
		}},
	{"data_port", "server's choice", "the server's data port (netperf -- -P ,port); a list gives each flow its own (the server opens one endpoint per port)",
		func(s *spec.Spec, v starlark.Value) (err error) {
			if l, ok := v.(starlark.Indexable); ok && !isString(v) {
				s.DataPorts, err = listOf(l, "a port", func(v starlark.Value) (int, error) { return toInt(v, -anyInt, anyInt) })
				return
			}
			s.DataPort, err = toInt(v, -anyInt, anyInt)
			return
		}},
	{"flows", "1", fmt.Sprintf("this many connections (UDP: flows) in one test, set up first, started at one instant and "+
		"measured over the same window, as N netperfs started together (up to %d for %s, %d for the others); "+
		"transactions, bytes and rate then apply to each flow; result.flows has each flow's figures", spec.MaxFlows, multiplexable(), spec.MaxThreadFlows),
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.Flows, err = toInt(v, math.MinInt32, math.MaxInt32)
			return
		}},
	{"local_ports", "kernel's choice", "(lo, hi), a range of source ports walked as netperf's TCP_CRR walks them (netperf -- -p min,max): each flow starts at its own place " +
		"in the range, binds the next port for every connection and skips a port still in use (counted in result.errors)",
		func(s *spec.Spec, v starlark.Value) error {
			l, ok := v.(starlark.Indexable)
			if !ok || isString(v) || l.Len() != 2 {
				return fmt.Errorf("want (lo, hi), two ports, got %s", v.Type())
			}
			lo, err := toInt(l.Index(0), math.MinInt32, math.MaxInt32)
			if err != nil {
				return err
			}
			hi, err := toInt(l.Index(1), math.MinInt32, math.MaxInt32)
			if err != nil {
				return err
			}
			s.LocalPortRange = &spec.PortRange{Lo: lo, Hi: hi}
			return nil
		}},
	{"client", "this process", "the control address (\"host\" or \"host:port\") of a `netscript serve` that runs the client side " +
		"toward host and sends the result back, so one script drives tests between other machines",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Client, err = toString(v); return }},
	{"server", `"netscript"`, "what answers at host:port: \"netscript\" (`netscript serve`), or \"netserver\", an unmodified netperf 2.7 " +
		"netserver spoken to in netperf's own protocol (port then defaults to 12865; one control connection per flow; " +
		"what netserver does not report is None in the result, and its notes say so)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Server, err = toString(v); return }},
	{"family", "\"auto\"", "the address family: \"inet\", \"inet6\" or \"auto\" (netperf -4, -6)",
		func(s *spec.Spec, v starlark.Value) error {
			str, err := toString(v)
			if err != nil {
				return err
			}
			s.Family, err = sock.ParseFamily(str)
			return err
		}},
	{"timeout", "1s", "how long to wait for a response before the transaction counts as lost (netperf -- -e)",
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.Timeout, err = toDuration(v)
			return
		}},
	{"connect_timeout", "5s", "bound on connecting to the server at set-up",
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.ConnectTimeout, err = toDuration(v)
			return
		}},
	{"brand", "\"\"", "a tag carried into the result and every output (netperf -B)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Brand, err = toString(v); return }},
	{"keep_going", "False", "whether a failure of this test (refused, nothing completed, the peer gone) is kept as a result with ok False and its error instead of ending the script, which still exits non-zero at its end (netscript --keep-going does it for every test)",
		func(_ *spec.Spec, v starlark.Value) error { _, err := toBool(v); return err }}, // the session's, not the test's: see keepGoing
	{"send_size", "the send buffer (16384 TCP, 65507 UDP)", "bytes per send call (netperf -- -m); for " + takersWhere("send_size", serverSends) + " the server's sends",
		func(s *spec.Spec, v starlark.Value) (err error) { s.SendSize, err = toSize(v); return }},
	{"recv_size", "the receive buffer", "bytes per receive call (netperf -- -M); for " + takersWhere("recv_size", (*spec.Workload).ClientSends) + " the server's receives",
		func(s *spec.Spec, v starlark.Value) (err error) { s.RecvSize, err = toSize(v); return }},
	{"bytes", "none", "a count of bytes sent to end after instead of a duration (netperf -l -N): an int or a string such as \"1G\"",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Bytes, err = toByteCount(v); return }},
	{"connections", "1 (2 against a netserver)", "tcp_bidir: 1, one connection per flow that both ends send and receive on at once; 2, a connection each way per flow (a flow is then a tcp_stream and a tcp_maerts side by side, as a netserver runs it)",
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.Connections, err = toInt(v, -anyInt, anyInt)
			return
		}},
	{"file", "a temporary file the client writes and removes", "tcp_sendfile: the regular file sent with sendfile(2), from its page cache, over and over (netperf -F)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.File, err = toString(v); return }},
	{"protocol", "\"tcp\"", "\"mptcp\": the data sockets are IPPROTO_MPTCP on both ends (Multipath TCP: the kernel adds subflows over the paths its path manager knows); result.mptcp counts the subflows, each flow's mptcp its own; the kernel's net.mptcp.enabled must be 1 on both ends",
		func(s *spec.Spec, v starlark.Value) (err error) { s.Protocol, err = toString(v); return }},
	{"fastopen", "False", "True: each connection opens with TCP Fast Open, sendto(MSG_FASTOPEN) on the client and TCP_FASTOPEN on the listener (netperf -- -F); result.fastopen says what really happened",
		func(s *spec.Spec, v starlark.Value) (err error) { s.FastOpen, err = toBool(v); return }},
	{"cpu_util", "False", "True: CPU utilisation and service demand measured on both ends (netperf -c -C), and the CPU time of the test's own threads",
		func(s *spec.Spec, v starlark.Value) (err error) { s.CPUUtil, err = toBool(v); return }},
	{"send_buffer", "kernel's default", "SO_SNDBUF of the client's data sockets (netperf -- -s); result.config shows what was granted",
		func(s *spec.Spec, v starlark.Value) (err error) { s.SendBuffer, err = toBuffer(v); return }},
	{"recv_buffer", "kernel's default", "SO_RCVBUF of the client's data sockets (netperf -- -s ,size)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.RecvBuffer, err = toBuffer(v); return }},
	{"remote_send_buffer", "kernel's default", "SO_SNDBUF of the server's data socket (netperf -- -S)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.RemoteSendBuffer, err = toBuffer(v); return }},
	{"remote_recv_buffer", "kernel's default", "SO_RCVBUF of the server's data socket (netperf -- -S ,size)",
		func(s *spec.Spec, v starlark.Value) (err error) { s.RemoteRecvBuffer, err = toBuffer(v); return }},
	{"cpu", "not bound", "the CPU the client's data-path thread is bound to (netperf -T cpu,)",
		func(s *spec.Spec, v starlark.Value) error { return toCPU(v, &s.CPU) }},
	{"remote_cpu", "not bound", "the CPU the server's data-path thread is bound to (netperf -T ,cpu)",
		func(s *spec.Spec, v starlark.Value) error { return toCPU(v, &s.RemoteCPU) }},
	{"interval", "none", "seconds between interim samples, kept in result.interim and shown live on a terminal (netperf -D)",
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.Interval, err = toDuration(v)
			if err == nil && s.Interval <= 0 {
				err = fmt.Errorf("must be positive, got %v", s.Interval)
			}
			return
		}},
	{"rate", "as fast as possible", "transactions (or sends, for streams) per second to pace the test to (netperf -w, -b)",
		func(s *spec.Spec, v starlark.Value) error {
			f, ok := values.Number(v)
			if !ok {
				return fmt.Errorf("want a number per second, got %s", v.Type())
			}
			if !(f > 0) {
				return fmt.Errorf("must be positive, got %v", v)
			}
			s.Rate = f
			return nil
		}},
	{"liveness", "3s", "how long the test runs on with no flow making progress (no transaction, no byte) " +
		"or nothing from the server on the control connection before it ends with what it measured so far: seconds or a string such as \"5s\"; " +
		"paced, lossy UDP_RR and TCP_CRR tests get their rate's gap, timeout or connect_timeout on top; 0: never",
		func(s *spec.Spec, v starlark.Value) (err error) {
			s.Liveness, err = toDuration(v)
			if err == nil && s.Liveness == 0 {
				s.Liveness = spec.LivenessOff
			}
			return
		}},
	{"control", "True", "False: no control connection; the test talks straight to a standing endpoint at host:data_port (`netscript serve --data WORKLOAD:PORT`), as netperf -N",
		func(s *spec.Spec, v starlark.Value) error {
			on, err := toBool(v)
			s.NoControl = !on
			return err
		}},
}

// toByteCount reads a byte count: a positive int, or a string with a K, M,
// G or T suffix (1024-based).
func toByteCount(v starlark.Value) (uint64, error) {
	if str, ok := starlark.AsString(v); ok {
		t := strings.TrimSpace(str)
		mult := uint64(1)
		if t != "" {
			if i := strings.IndexByte("KMGTkmgt", t[len(t)-1]); i >= 0 {
				mult = 1 << (10 * (i%4 + 1))
				t = t[:len(t)-1]
			}
		}
		n, err := strconv.ParseUint(t, 10, 64)
		if err != nil || n < 1 || n > math.MaxInt64/mult {
			return 0, fmt.Errorf("%q is not a byte count (want an int, or a string such as \"1G\")", str)
		}
		return n * mult, nil
	}
	n, err := toInt(v, 1, math.MaxInt64)
	return uint64(n), err
}

// toBuffer reads a socket buffer size: 0 (the kernel's default) or more,
// as an int or a string such as "256K".
func toBuffer(v starlark.Value) (int, error) {
	if i, ok := v.(starlark.Int); ok {
		n, ok := i.Int64()
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			return 0, fmt.Errorf("must be at most %d bytes, got %s", spec.MaxBuffer, i)
		}
		return int(n), nil
	}
	return toSize(v)
}

// toCPU reads a CPU number into *p.
func toCPU(v starlark.Value, p **int) error {
	n, err := toInt(v, -anyInt, anyInt)
	if err != nil {
		return err
	}
	*p = &n
	return nil
}

// multiplexable names the workloads whose many flows share epoll threads.
func multiplexable() string {
	var names []string
	for _, w := range spec.Workloads() {
		if w.MuxClient {
			names = append(names, w.Name)
		}
	}
	return strings.Join(names, ", ")
}

// takersWhere names the workloads of the registry that take the option
// called name and are what keep says, as help texts name them ("tcp_stream
// and udp_stream").
func takersWhere(name string, keep func(*spec.Workload) bool) string {
	var names []string
	for _, w := range spec.Takers(name) {
		if keep(w) {
			names = append(names, w.Name)
		}
	}
	return module.AndList(names)
}

// serverSends reports whether the server sends w's bulk data.
func serverSends(w *spec.Workload) bool { return w.Bulk && w.ServerSends }

// optionsFor lists the options workload w takes.
func optionsFor(w *spec.Workload) []option {
	var out []option
	for _, o := range options {
		if w.Accepts(o.name) {
			out = append(out, o)
		}
	}
	return out
}

// parseSpec builds a Spec for w from a builtin's arguments. Every error
// names the option.
func parseSpec(w *spec.Workload, args starlark.Tuple, kwargs []starlark.Tuple) (spec.Spec, error) {
	s := spec.Default(w)
	if len(args) > 0 {
		return s, fmt.Errorf("takes keyword options only (for example %s(duration=2)), got %d positional argument(s)", w.Name, len(args))
	}
	opts := optionsFor(w)
	seen := map[string]bool{}
	durationGiven, portGiven := false, false
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		if seen[name] {
			return s, fmt.Errorf("option %s given twice", name)
		}
		seen[name] = true
		o, ok := findOption(opts, name)
		if !ok {
			return s, unknownOption(w, name, opts)
		}
		if kv[1] == starlark.None {
			continue // None keeps the default
		}
		if err := o.set(&s, kv[1]); err != nil {
			return s, &spec.OptionError{Option: name, Err: err}
		}
		if name == "duration" {
			durationGiven = true
		}
		if name == "port" {
			portGiven = true
		}
	}
	if inHost, err := splitHost(&s, portGiven); err != nil {
		return s, err
	} else if inHost {
		portGiven = true
	}
	if s.Server == spec.ServerNetserver && !portGiven {
		s.Port = spec.NetserverPort // netserver's own default, not netscript's
	}
	if (s.Transactions > 0 || s.Bytes > 0) && !durationGiven {
		s.Duration = 0 // a count was given instead of a length
	}
	return s, s.Validate()
}

func findOption(opts []option, name string) (option, bool) {
	for _, o := range opts {
		if o.name == name {
			return o, true
		}
	}
	return option{}, false
}

// unknownOption explains a name the workload does not take: a near miss is
// suggested, and an option of another workload is called that, with the
// workloads that take it.
func unknownOption(w *spec.Workload, name string, opts []option) error {
	for _, o := range options {
		if o.name == name {
			return fmt.Errorf("option %s %w", name, &spec.NotApplicableError{Option: name, Workload: w})
		}
	}
	var names []string
	for _, o := range opts {
		names = append(names, o.name)
	}
	sort.Strings(names)
	msg := fmt.Sprintf("unknown option %s", name)
	if best := nearest.Name(name, names); best != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", best)
	}
	return fmt.Errorf("%s; %s takes: %s", msg, w.Name, strings.Join(names, ", "))
}

// isString reports whether v is a string (which is also Indexable).
func isString(v starlark.Value) bool {
	_, ok := v.(starlark.String)
	return ok
}

// listOf reads a list (or tuple) of values with conv; an error names the
// element.
func listOf[T any](l starlark.Indexable, what string, conv func(starlark.Value) (T, error)) ([]T, error) {
	if l.Len() == 0 {
		return nil, fmt.Errorf("an empty list: give %s per flow", what)
	}
	out := make([]T, l.Len())
	for i := range out {
		x, err := conv(l.Index(i))
		if err != nil {
			return nil, fmt.Errorf("[%d]: %v", i, err)
		}
		out[i] = x
	}
	return out, nil
}

func toString(v starlark.Value) (string, error) {
	s, ok := starlark.AsString(v)
	if !ok {
		return "", fmt.Errorf("want a string, got %s", v.Type())
	}
	return s, nil
}

func toBool(v starlark.Value) (bool, error) {
	b, ok := v.(starlark.Bool)
	if !ok {
		return false, fmt.Errorf("want True or False, got %s", v.Type())
	}
	return bool(b), nil
}

func toInt(v starlark.Value, lo, hi int64) (int, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("want an int, got %s %s", v.Type(), v)
	}
	n, ok := i.Int64()
	if !ok || n < lo || n > hi {
		return 0, fmt.Errorf("must be between %d and %d, got %s", lo, hi, i)
	}
	return int(n), nil
}

// toSize reads a size in bytes: an int, or a string with a K, M or G suffix
// (1024-based, as netperf's capitals are), such as "64K".
func toSize(v starlark.Value) (int, error) {
	if s, ok := starlark.AsString(v); ok {
		n, err := parseSize(s)
		if err != nil {
			return 0, err
		}
		return n, nil
	}
	n, err := toInt(v, math.MinInt32, math.MaxInt32)
	if err != nil {
		return 0, fmt.Errorf("want a size in bytes (an int, or a string such as \"64K\"), got %s", v.Type())
	}
	if n < 1 {
		return 0, fmt.Errorf("must be at least 1 byte, got %d", n)
	}
	return n, nil
}

func parseSize(s string) (int, error) {
	t := strings.TrimSpace(s)
	mult := 1
	if t != "" {
		switch t[len(t)-1] {
		case 'K', 'k':
			mult = 1 << 10
		case 'M', 'm':
			mult = 1 << 20
		case 'G', 'g':
			mult = 1 << 30
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 1 || int64(n)*int64(mult) > math.MaxInt32 {
		return 0, fmt.Errorf("%q is not a size in bytes (want an int, or a string such as \"64K\")", s)
	}
	return n * mult, nil
}

func toDuration(v starlark.Value) (time.Duration, error) {
	switch x := v.(type) {
	case starlark.String:
		return spec.ParseDuration(string(x))
	case starlark.Int:
		f, _ := starlark.AsFloat(x)
		return spec.Seconds(f)
	case starlark.Float:
		return spec.Seconds(float64(x))
	}
	return 0, fmt.Errorf("want seconds (a number) or a string such as \"10s\", got %s", v.Type())
}
