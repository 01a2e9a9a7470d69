package starlib_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
)

// TestSurface holds what a script's author sees of netscript, as one
// golden file (testdata/golden/surface.txt; go test -run Surface -update
// rewrites it): help() of every predeclared name, of every member of the
// predeclared modules, of every name help() knows by a string and of the
// values scripts meet; dir() and type() of each; and the error text of a
// table of bad calls of every builtin. A change of the Go code behind the
// builtins (moving them between packages) must leave it as it is.
func TestSurface(t *testing.T) {
	th, _ := startest.NewThread(t)
	var out strings.Builder
	th.Print = func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }
	pre := starlib.Predeclared()
	run := func(code string) {
		fmt.Fprintf(&out, ">>> %s\n", code)
		if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "surface.star", code, pre); err != nil {
			fmt.Fprintf(&out, "error: %s\n", err)
		}
	}

	// The predeclared names, and the members of the modules among them.
	var names []string
	for n := range pre {
		names = append(names, n)
	}
	sort.Strings(names)
	run("help()")
	run("help(help)")
	for _, n := range names {
		run(fmt.Sprintf("print(type(%s), dir(%s))", n, n))
		run(fmt.Sprintf("help(%s)", n))
		run(fmt.Sprintf("help(%q)", n))
		if _, builtin := pre[n].(*starlark.Builtin); builtin {
			continue
		}
		m, ok := pre[n].(starlark.HasAttrs)
		if !ok {
			continue
		}
		for _, a := range m.AttrNames() {
			run(fmt.Sprintf("print(type(%s.%s), dir(%s.%s))", n, a, n, a))
			run(fmt.Sprintf("help(%s.%s)", n, a))
			run(fmt.Sprintf("help(\"%s.%s\")", n, a))
		}
	}
	// What help() knows by a string besides the predeclared names.
	for _, n := range []string{
		"result", "result.tcp", "result.zerocopy", "result.flows", "flow", "censored",
		"latency", "latency.percentile", "latency.percentiles", "latency.histogram",
		"mean", "ci", "stddev", "median", "percentile", "nope",
	} {
		run(fmt.Sprintf("help(%q)", n))
	}

	// The values scripts meet: results and their parts, statistics.
	setup := `
r = tcp_rr(transactions=5)
u = udp_rr(transactions=5)
s = tcp_stream(duration=1, interval=0.25)
k = [0]
def count():
    k[0] += 1
    return float(k[0])
c = confidence(lambda: 1.5, min=3, max=3)
cmp = compare(count, count, runs=5)
iv = stats.ci([1, 2, 3, 4])
e = env()
`
	g, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "setup.star", setup, pre)
	if err != nil {
		t.Fatal(err)
	}
	for n, v := range g {
		pre[n] = v
	}
	for _, x := range []string{
		"r", "r.latency", "r.censored", "r.config", "r.remote", "r.tcp", "r.flows", "r.flows[0]", "r.flows[0].latency",
		"r.errors", "r.interim", "u", "u.udp", "u.latency", "s", "s.interim[0]", "s.flows[0].interim", "s.latency",
		"s.remote", "s.tcp", "c", "cmp", "iv", "e", "e.sysctls", "r.latency.histogram", "r.latency.percentile",
		"r.to_dict", "c.to_dict",
	} {
		run(fmt.Sprintf("print(type(%s), dir(%s))", x, x))
		// help() of a list shows its elements, which are measurements.
		run(fmt.Sprintf("help(%s) if type(%s) != \"list\" else None", x, x))
	}
	for _, x := range []string{"c", "iv", "sorted(c.to_dict().keys())", "sorted(cmp.to_dict().keys())",
		"sorted(r.to_dict().keys())", "sorted(r.to_dict()['latency'].keys())", "str(r.config)[:8]"} {
		run(fmt.Sprintf("print(%s)", x))
	}

	// Bad calls: the error a script's author reads.
	for _, code := range badCalls {
		run(code)
	}
	startest.Golden(t, "surface.txt", out.String())
}

// badCalls are calls of every builtin that must fail, one statement each.
var badCalls = []string{
	// workloads and their options
	`tcp_rr(1)`,
	`tcp_rr(foo=1)`,
	`tcp_rr(bursts=1)`,
	`tcp_stream(burst=4)`,
	`tcp_rr(burst="x")`,
	`tcp_rr(duration=0)`,
	`tcp_rr(duration="ten")`,
	`tcp_rr(request=0)`,
	`tcp_rr(request="1X")`,
	`tcp_rr(transactions=0)`,
	`tcp_rr(port=70000)`,
	`tcp_rr(host="1.2.3.4:5", port=6)`,
	`tcp_rr(host="1.2.3.4:99999")`,
	`tcp_rr(family="ipx")`,
	`tcp_rr(flows=0)`,
	`tcp_rr(flows=100000)`,
	`tcp_rr(flows=3, local=["127.0.0.1"])`,
	`tcp_rr(flows=2, data_port=[])`,
	`tcp_rr(control=False)`,
	`tcp_rr(control=False, host="127.0.0.1", interval=1, data_port=9)`,
	`tcp_rr(server="netserver")`,
	`tcp_rr(server="bogus", host="127.0.0.1")`,
	`tcp_rr(server="netserver", host="127.0.0.1", client="127.0.0.1")`,
	`tcp_rr(client="127.0.0.1")`,
	`tcp_rr(local_ports=(1,))`,
	`tcp_rr(local_ports=(2000, 1000))`,
	`tcp_rr(rate=0)`,
	`tcp_rr(rate="fast")`,
	`tcp_rr(interval=0)`,
	`tcp_rr(liveness="x")`,
	`tcp_rr(cpu=-5)`,
	`tcp_rr(bytes="1Q")`,
	`tcp_stream(bytes="1Q")`,
	`tcp_stream(bytes=0)`,
	`tcp_rr(send_buffer="x")`,
	`tcp_rr(send_buffer=1 << 40)`,
	`tcp_rr(congestion=1)`,
	`tcp_rr(mss=0)`,
	`tcp_rr(tos=300)`,
	`tcp_rr(busy_poll=0)`,
	`tcp_rr(notsent_lowat=-1)`,
	`tcp_rr(max_pacing_rate="fast")`,
	`tcp_rr(max_pacing_rate=0)`,
	`tcp_rr(cork=True)`,
	`tcp_stream(quickack=True)`,
	`tcp_rr(zerocopy=True)`,
	`udp_rr(tcp_info=True)`,
	`udp_rr(nodelay=True)`,
	`udp_rr(congestion="cubic")`,
	`tcp_crr(flows=2, local_port=[1, 2, 3])`,
	`tcp_cc(fastopen=1)`,
	`tcp_maerts(recv_size=0)`,
	`udp_stream(send_size=70000)`,
	// defaults()
	`defaults(1)`,
	`defaults(foo=1)`,
	`defaults(durration=1)`,
	`defaults(port=70000)`,
	`defaults(burst="x")`,
	`defaults(duration=0)`,
	`parallel([lambda: defaults(duration=1)])`,
	// statistics
	`confidence(1)`,
	`confidence(lambda x: x)`,
	`confidence(lambda: 1, level=100)`,
	`confidence(lambda: 1, min=1)`,
	`confidence(lambda: 1, max=1000)`,
	`confidence(lambda: "x")`,
	`confidence(lambda: None)`,
	`confidence(lambda: 1, metric="latency.p99")`,
	`confidence(lambda: 1, metric="")`,
	`confidence(lambda: 1, metric=3)`,
	`confidence(lambda: 1, method="bogus")`,
	`confidence(lambda: float("nan"))`,
	`confidence(lambda: r, metric="nope", min=2, max=2)`,
	`confidence(lambda: r, metric="config", min=2, max=2)`,
	`confidence(lambda: r, metric="local_cpu", min=2, max=2)`,
	`confidence(lambda: 1, bogus=1)`,
	`compare(1, 2)`,
	`compare(lambda: 1, 2)`,
	`compare(lambda: 1, lambda: 2, runs=1)`,
	`compare(lambda: 1, lambda: 2, runs=1000)`,
	`compare(lambda: 1, lambda: 2, runs=5, level=0)`,
	`compare(lambda: 1, lambda: 2, metric="")`,
	`compare(lambda: 1, lambda: 1, runs=2)`,
	`stats.mean([])`,
	`stats.mean("x")`,
	`stats.mean([1, "a"])`,
	`stats.mean([1, float("nan")])`,
	`stats.stddev([1])`,
	`stats.median()`,
	`stats.percentile([1, 2], 101)`,
	`stats.percentile([1], "x")`,
	`stats.ci([1, 2], level=100)`,
	`stats.ci([1])`,
	`r.latency.percentile(101)`,
	`r.latency.percentile("x")`,
	`r.latency.percentiles(5)`,
	`r.latency.percentiles([1, 200])`,
	// format() and round()
	`format([1])`,
	`format(1, "q")`,
	`format(1.5, "d")`,
	`format(1, "10000000")`,
	`format("x", "+")`,
	`format(1, ",_")`,
	`round("x")`,
	`round(1.5, "x")`,
	`round(1, 2, 3)`,
	// output
	`table(1)`,
	`table([1])`,
	`table([r], fields=["nope"])`,
	`table([r], fields=[])`,
	`table([r], fields=[1])`,
	`table([r], fields=1)`,
	`table([r], fields="throughput,")`,
	`csv([r], fields="")`,
	`csv([r], header=1)`,
	`csv([r], ["latency.nope"])`,
	`kv([r, r])`,
	`kv(1)`,
	`kv(r, fields=["nope"])`,
	`env(1)`,
	// pictures (none of these writes a file)
	`plot([r])`,
	`plot([r], file="")`,
	`plot([], file="x.svg")`,
	`plot([r], file="x.svg", width=0)`,
	`plot(1, file="x.svg")`,
	`plot([r], x=1, file="x.svg")`,
	`latency_plot([r])`,
	`timeseries([r])`,
	`bars([r], file="x.svg", height=-1)`,
	`bars([c], file="x.svg", labels=1)`,
	`bars([c], file="x.svg", labels=[1])`,
	`chart(1)`,
	`chart([r], kind="nope")`,
	`chart([r], kind=1)`,
	`chart([s], kind="cdf")`,
	`chart([r], x="nope")`,
	`chart([r], series="")`,
	`chart([r, c])`,
	`chart([cmp], kind="plot")`,
	`chart([r], kind="timeseries", per_flow=True)`,
	`chart([r, s], kind="plot", x="config.request")`,
	`chart([c], kind="cdf")`,
	// concurrency
	`parallel(1)`,
	`parallel([1])`,
	`parallel("ab")`,
	`parallel([lambda: parallel([])])`,
	`parallel([lambda: 1 // 0])`,
	"l = []\nparallel([lambda: l.append(1)])",
	`aggregate(1)`,
	`aggregate([])`,
	`aggregate([1])`,
	`aggregate([r, s])`,
	// help() and values
	`help("nope")`,
	`help(1, 2)`,
	`help(x=1, y=2)`,
	`json.encode(r)`,
	`r.nope`,
	`r.to_dict(1)`,
	`{r: 1}`,
	`{c: 1}`,
	`r.throughput = 1`,
	`r.latency.nope`,
	`c.nope`,
	`c.to_dict(1)`,
	`e.nope`,
}
