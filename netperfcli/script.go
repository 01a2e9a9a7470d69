package netperfcli

import (
	"fmt"
	"strconv"
	"strings"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// Script is the Starlark script that runs the same test as the command
// line (api.md's builtins and options), commented with the line itself.
func (c *Command) Script() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", c.Line)
	fmt.Fprintf(&b, "# The netperf command line above as a netscript script (netscript netperf --script);\n")
	fmt.Fprintf(&b, "# run it with: netscript FILE.star\n\n")
	if c.Format != 0 && c.Format != 'x' && (c.Format != 'm' || c.Test.RR()) {
		fmt.Fprintf(&b, "# -f %c: netperf prints %s; r.throughput is in %s (times %s makes it %s).\n\n",
			c.Format, c.units(), engineUnitsOf(c), num(c.scaleRate(1)), c.units())
	}
	call := fmt.Sprintf("%s(%s)", c.Test.Name, strings.Join(c.kwargs(), ", "))
	if c.IterMax > 1 {
		fmt.Fprintf(&b, "def test():\n    return %s\n\n", call)
		fmt.Fprintf(&b, "# -i %d,%d -I %d,%s: iterate until the %d %% interval is no wider than %s %% of the mean.\n",
			c.IterMax, c.IterMin, c.Level, num(c.Width), c.Level, num(c.Width))
		fmt.Fprintf(&b, "c = confidence(test, level = %d, width = %s, min = %d, max = %d)\n", c.Level, num(c.Width), c.IterMin, c.IterMax)
		fmt.Fprintf(&b, "r = c.results[-1]\n")
		fmt.Fprintf(&b, "print(\"throughput\", c.mean, r.units, \"width\", c.width, \"%%\", \"iterations\", c.iterations, \"met\", c.met)\n")
	} else {
		fmt.Fprintf(&b, "r = %s\n", call)
	}
	fmt.Fprintf(&b, "print(table([r]))\n")
	return b.String()
}

// num writes a number as Starlark reads it back.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func quote(s string) string { return strconv.Quote(s) }

// kwargs are the workload options the command line sets, in api.md's
// names.
func (c *Command) kwargs() []string {
	var s spec.Spec
	kw := target(c, &s)
	add := func(name, v string) { kw = append(kw, name+" = "+v) }
	switch {
	case c.Count > 0 && c.Test.RR():
		add("transactions", strconv.FormatInt(c.Count, 10))
	case c.Count > 0:
		add("bytes", strconv.FormatInt(c.Count, 10))
	case c.Duration > 0:
		add("duration", num(c.Duration.Seconds()))
	}
	if c.Request > 0 {
		add("request", strconv.Itoa(c.Request))
	}
	if c.Response > 0 {
		add("response", strconv.Itoa(c.Response))
	}
	ints := []struct {
		name string
		v    int
	}{
		{"send_size", c.SendSize}, {"recv_size", c.RecvSize}, {"burst", c.Burst},
		{"send_buffer", c.SendBuffer}, {"recv_buffer", c.RecvBuffer},
		{"remote_send_buffer", c.RemoteSendBuffer}, {"remote_recv_buffer", c.RemoteRecvBuffer},
		{"local_port", c.LocalPort}, {"data_port", c.DataPort},
	}
	for _, x := range ints {
		if x.v > 0 {
			add(x.name, strconv.Itoa(x.v))
		}
	}
	if c.NoDelay {
		add("nodelay", "True")
	}
	if c.FastOpen {
		add("fastopen", "True")
	}
	if l := c.dataLocal(); l != "" {
		add("local", quote(l))
	}
	if c.PortRange != nil {
		add("local_ports", fmt.Sprintf("(%d, %d)", c.PortRange.Lo, c.PortRange.Hi))
	}
	switch c.Family {
	case sock.Inet:
		add("family", `"inet"`)
	case sock.Inet6:
		add("family", `"inet6"`)
	}
	if c.Brand != "" {
		add("brand", quote(c.Brand))
	}
	if c.LocalCPU || c.RemoteCPU {
		add("cpu_util", "True")
	}
	if c.CPU != nil {
		add("cpu", strconv.Itoa(*c.CPU))
	}
	if c.RemoteCPUBind != nil {
		add("remote_cpu", strconv.Itoa(*c.RemoteCPUBind))
	}
	if c.Demo > 0 {
		add("interval", num(c.Demo.Seconds()))
	}
	if c.Rate > 0 {
		add("rate", num(c.Rate))
	}
	if c.NoControl {
		add("control", "False")
	}
	return kw
}

// engineUnitsOf is the units of the result a script gets.
func engineUnitsOf(c *Command) string {
	if c.Test.RR() {
		return "Trans/s"
	}
	return "10^6bits/s"
}
