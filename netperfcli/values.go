package netperfcli

import (
	"math"
	"strconv"
	"strings"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// pair splits netperf's "a,b": a single value sets both.
func pair(v string) (string, string) {
	if a, b, ok := strings.Cut(v, ","); ok {
		return a, b
	}
	return v, v
}

// explicit splits a * option's "a,b": a single value sets only the first.
func explicit(v string) (string, string) {
	a, b, _ := strings.Cut(v, ",")
	return a, b
}

// convert reads a size as netperf's convert() does: K/M/G are 1024ⁿ,
// k/m/g 1000ⁿ.
func convert(v string) (int64, bool) {
	mult := int64(1)
	if v != "" {
		switch v[len(v)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'k':
			mult = 1000
		case 'm':
			mult = 1000 * 1000
		case 'g':
			mult = 1000 * 1000 * 1000
		}
		if mult != 1 {
			v = v[:len(v)-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt32/mult {
		return 0, false
	}
	return n * mult, true
}

func size(opt, v string) (int, error) {
	n, ok := convert(v)
	if !ok || n < 1 {
		return 0, bad("invalid size '%s' for %s: want bytes, optionally with K, M, G (1024) or k, m, g (1000)", v, opt)
	}
	return int(n), nil
}

func sizes(opt, v string, a, b *int) error {
	x, y := pair(v)
	var err error
	if x != "" {
		if *a, err = size(opt, x); err != nil {
			return err
		}
	}
	if y != "" {
		*b, err = size(opt, y)
	}
	return err
}

func atoi(opt, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, bad("invalid value '%s' for %s: want a count", v, opt)
	}
	return n, nil
}

func port(opt, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		return 0, bad("invalid port '%s' for %s", v, opt)
	}
	return n, nil
}

func cpuNum(v string) (*int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return nil, bad("invalid CPU '%s' for -T", v)
	}
	return &n, nil
}

// iterations reads one value of -i; netperf clamps them to [3, 30], and
// netscript refuses what is not a positive count.
func iterations(whole, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, bad("invalid iteration count '%s' in -i %s: want max,min between 3 and 30", v, whole)
	}
	return n, nil
}

func clamp(n int) int { return min(max(n, 3), 30) }

// waitTime reads -w as netperf's convert_timespec: milliseconds by
// default, or with an m, u or s suffix.
func waitTime(v string) (time.Duration, error) {
	unit := time.Millisecond
	t := v
	switch {
	case strings.HasSuffix(t, "ms"):
		t = t[:len(t)-2]
	case strings.HasSuffix(t, "m"):
		t = t[:len(t)-1]
	case strings.HasSuffix(t, "us"):
		t, unit = t[:len(t)-2], time.Microsecond
	case strings.HasSuffix(t, "u"):
		t, unit = t[:len(t)-1], time.Microsecond
	case strings.HasSuffix(t, "s"):
		t, unit = t[:len(t)-1], time.Second
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 {
		return 0, bad("invalid interval '%s' for -w", v)
	}
	return time.Duration(n) * unit, nil
}

func family(v string) (sock.Family, error) {
	switch {
	case strings.Contains(v, "6"):
		return sock.Inet6, nil
	case strings.Contains(v, "inet"), strings.Contains(v, "4"):
		return sock.Inet, nil
	case strings.Contains(v, "unspec"), strings.Contains(v, "0"):
		return sock.Auto, nil
	}
	return sock.Auto, bad("'%s' is not an address family (want 4, 6, inet, inet6 or unspec)", v)
}

// lookupTest finds a workload by netperf's name.
func lookupTest(name string) (*spec.Workload, bool) {
	for _, w := range spec.Workloads() {
		if w.Netperf == name {
			return w, true
		}
	}
	return nil, false
}

// check refuses combinations netscript does not run, before any traffic.
func (c *Command) check() error {
	w := c.Test
	if c.Count > 0 && w.Datagram && !w.RR() {
		return refused("-l -count with UDP_STREAM", "a lost datagram would make the count unreachable; give a length in seconds")
	}
	if (c.Request > 0 || c.Response > 0) && !w.Accepts(spec.OptRequest) {
		return refused("-r", "it applies to request/response tests; "+w.Netperf+" has none")
	}
	if (c.SendSize > 0 || c.RecvSize > 0) && !w.Accepts(spec.OptSendSize) {
		return refused("-m/-M", "they apply to stream tests; "+w.Netperf+" has request and response sizes (-r)")
	}
	if c.Burst > 0 && !w.Accepts(spec.OptBurst) {
		return refused("-b", w.Netperf+" opens a connection per transaction, so it has one transaction in flight")
	}
	if c.FastOpen && !w.Accepts(spec.OptFastOpen) {
		return refused("-F", "TCP Fast Open applies to TCP_CRR, which opens a connection per transaction")
	}
	if c.NoDelay && w.Datagram {
		return refused("-D", "TCP_NODELAY applies to TCP tests")
	}
	if c.PortRange != nil && !w.Accepts(spec.OptLocalPorts) {
		return refused("-p min,max", "the client port range applies to tests that open a connection per transaction")
	}
	if c.Format == 'x' && !w.RR() {
		return refused("-f x", "stream tests are reported in bits or bytes per second")
	}
	if c.NoControl && c.DataPort == 0 {
		return refused("-N without -- -P ,port", "netscript does not aim at the discard, chargen or echo services; give the data port of a standing endpoint")
	}
	if c.NoControl && c.Host == "" {
		return refused("-N without -H", "a standing endpoint needs its host")
	}
	return nil
}

// endSize is a *_SIZE_END selector: the socket buffer at the end of the
// test when the engine read it (this end's data socket; a netserver's
// report), else the size granted at creation (a connection per
// transaction, or a netscript server, which reports no end sizes).
func endSize(end, granted int) string {
	if end > 0 {
		return intv(end)
	}
	return intv(granted)
}

// The *_SIZE_END selectors' values (see endSize).
func lssEnd(f *Figures) string {
	return endSize(f.Last.Config.LocalSendBufferEnd, f.Last.Config.LocalSendBuffer)
}
func lsrEnd(f *Figures) string {
	return endSize(f.Last.Config.LocalRecvBufferEnd, f.Last.Config.LocalRecvBuffer)
}
func rssEnd(f *Figures) string {
	return endSize(f.Last.Config.RemoteSendBufferEnd, f.Last.Config.RemoteSendBuffer)
}
func rsrEnd(f *Figures) string {
	return endSize(f.Last.Config.RemoteRecvBufferEnd, f.Last.Config.RemoteRecvBuffer)
}
