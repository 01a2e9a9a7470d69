package netperfcli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/starlib/output"
)

// Script is the Starlark script that runs the same test as the command
// line (api.md's builtins and options), commented with the line itself:
// every iteration's result is printed in the command's output form (its
// selectors, and with -P 0 no header line).
func (c *Command) Script() (string, error) {
	s, err := c.Spec()
	if err != nil {
		return "", c.explain(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", c.Line)
	fmt.Fprintf(&b, "# The netperf command line above as a netscript script (netscript netperf --script);\n")
	fmt.Fprintf(&b, "# run it with: netscript FILE.star\n\n")
	if c.Format != 'x' && c.Format != 'm' {
		fmt.Fprintf(&b, "# -f %c: netperf prints %s/s; r.throughput is in %s.\n\n", c.Format, c.unitsWord(), engineUnits(&s))
	}
	if notes := c.scriptNotes(&s); len(notes) > 0 {
		for _, n := range notes {
			fmt.Fprintf(&b, "# %s\n", n)
		}
		b.WriteString("\n")
	}
	call := fmt.Sprintf("%s(%s)", s.Workload.Name, strings.Join(c.kwargs(&s), ", "))
	if c.IterMax > 1 {
		fmt.Fprintf(&b, "def test():\n    return %s\n\n", call)
		fmt.Fprintf(&b, "# -i %d,%d -I %d,%s: iterate until the %d %% interval is no wider than %s %% of the mean.\n",
			c.IterMax, c.IterMin, c.Level, num(c.Interval*100), c.Level, num(c.Interval*100))
		fmt.Fprintf(&b, "c = confidence(test, level = %d, width = %s, min = %d, max = %d)\n", c.Level, num(c.Interval*100), c.IterMin, c.IterMax)
		fmt.Fprintf(&b, "print(\"throughput\", format(c.mean, \".2f\"), c.units, \"width\", format(c.width, \".2f\"), \"%%\", \"iterations\", c.iterations, \"met\", c.met)\n")
		fmt.Fprintf(&b, "results = c.results\n")
	} else {
		fmt.Fprintf(&b, "results = [%s]\n", call)
	}
	b.WriteString(c.scriptOutput())
	return b.String(), nil
}

// scriptOutput prints the results as the command's output form does:
// kv() for -k, csv() for -o (header=False with -P 0), table() otherwise,
// with the selectors a script's results have.
func (c *Command) scriptOutput() string {
	sel := c.scriptSelectors()
	fields := ""
	if sel != "" {
		fields = ", " + strconv.Quote(sel)
	}
	switch {
	case c.Test.Output == OutputKeyval:
		return fmt.Sprintf("for r in results:\n    print(kv(r%s))\n", fields)
	case c.Test.Output == OutputCSV:
		header := ""
		if c.PrintHeaders == 0 {
			header = ", header = False"
		}
		return fmt.Sprintf("print(csv(results%s%s))\n", fields, header)
	}
	return fmt.Sprintf("print(table(results%s))\n", fields)
}

// scriptSelectors are the command's selectors that a script's results
// fill ("" for the output form's own default).
func (c *Command) scriptSelectors() string {
	if c.Test.Legacy || !c.Test.Omni || c.Test.Selection == "" {
		return ""
	}
	blocks, err := c.selection()
	if err != nil {
		return ""
	}
	known := output.NetperfSelectors()
	var names []string
	for _, b := range blocks {
		for _, e := range cut(b) {
			if e != nil && slices.Contains(known, e.name) && !slices.Contains(names, e.name) {
				names = append(names, e.name)
			}
		}
	}
	return strings.Join(names, ",")
}

// scriptNotes say what of the command line a script does not carry.
func (c *Command) scriptNotes(s *spec.Spec) []string {
	var notes []string
	if s.Netserver() {
		k := &sock.Knobs{}
		c.knobs(s, k)
		if k.Given() || c.RemoteTOS > 0 || c.Test.CongRemote != "" {
			notes = append(notes, "-Y, -K, -C, -G, -q: a script cannot ask a netserver to set socket options; netscript netperf can")
		}
	}
	if c.Test.Selection != "" && c.scriptSelectors() == "" {
		notes = append(notes, "the -k/-o/-O selectors name no field of a script's result")
	}
	return notes
}

// num writes a number as Starlark reads it back.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// kwargs are the workload options of the test s, in api.md's names.
func (c *Command) kwargs(s *spec.Spec) []string {
	var kw []string
	add := func(name, v string) { kw = append(kw, name+" = "+v) }
	if !c.embedded() && s.Host != "" {
		add("host", strconv.Quote(s.Host))
		if s.Netserver() {
			add("server", `"netserver"`)
			if s.Port != NetserverPort {
				add("port", strconv.Itoa(s.Port))
			}
		} else {
			add("port", strconv.Itoa(s.Port))
		}
	}
	switch {
	case s.Transactions > 0:
		add("transactions", strconv.FormatUint(s.Transactions, 10))
	case s.Bytes > 0:
		add("bytes", strconv.FormatUint(s.Bytes, 10))
	case s.Duration != spec.DefaultDuration:
		add("duration", num(s.Duration.Seconds()))
	}
	d := spec.Default(s.Workload)
	if s.Request != d.Request {
		add("request", strconv.Itoa(s.Request))
	}
	if s.Response != d.Response {
		add("response", strconv.Itoa(s.Response))
	}
	for _, x := range []struct {
		name string
		v    int
	}{
		{"send_size", s.SendSize}, {"recv_size", s.RecvSize}, {"burst", s.Burst},
		{"send_buffer", s.SendBuffer}, {"recv_buffer", s.RecvBuffer},
		{"remote_send_buffer", s.RemoteSendBuffer}, {"remote_recv_buffer", s.RemoteRecvBuffer},
		{"local_port", s.LocalPort}, {"data_port", s.DataPort},
	} {
		if x.v > 0 {
			add(x.name, strconv.Itoa(x.v))
		}
	}
	if s.NoDelay {
		add("nodelay", "True")
	}
	if s.FastOpen {
		add("fastopen", "True")
	}
	if s.Local != "" {
		add("local", strconv.Quote(s.Local))
	}
	if r := s.LocalPortRange; r != nil {
		add("local_ports", fmt.Sprintf("(%d, %d)", r.Lo, r.Hi))
	}
	switch s.Family {
	case sock.Inet:
		add("family", `"inet"`)
	case sock.Inet6:
		add("family", `"inet6"`)
	}
	if s.Brand != "" {
		add("brand", strconv.Quote(s.Brand))
	}
	if s.CPUUtil {
		add("cpu_util", "True")
	}
	if s.CPU != nil {
		add("cpu", strconv.Itoa(*s.CPU))
	}
	if s.RemoteCPU != nil {
		add("remote_cpu", strconv.Itoa(*s.RemoteCPU))
	}
	if s.Interval > 0 {
		add("interval", num(s.Interval.Seconds()))
	}
	if s.Rate > 0 {
		add("rate", num(s.Rate))
	}
	if s.Timeout > 0 && s.Timeout != spec.DefaultUDPTimeout {
		add("timeout", num(s.Timeout.Seconds()))
	}
	k := &s.Knobs
	if k.Congestion != "" {
		add("congestion", strconv.Quote(k.Congestion))
	}
	if k.HasTOS {
		add("tos", strconv.Itoa(k.TOS))
	}
	if k.Cork {
		add("cork", "True")
	}
	if k.MSS > 0 {
		add("mss", strconv.Itoa(k.MSS))
	}
	if k.MaxPacingRate > 0 {
		add("max_pacing_rate", strconv.FormatUint(k.MaxPacingRate, 10))
	}
	if s.NoControl {
		add("control", "False")
	}
	return kw
}

// engineUnits is the units of the result a script gets.
func engineUnits(s *spec.Spec) string {
	if s.Workload.RR() {
		return "Trans/s"
	}
	return "10^6bits/s"
}
