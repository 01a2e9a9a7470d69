package latency

import (
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/spec"
)

// mark is one of flent's DSCP classes, as its rrul test marks a stream or
// a probe (flent/tests/rrul.conf: marking="CS1,CS1", "EF,EF", ...).
type mark struct {
	name string
	tos  int // the IP_TOS byte: the DSCP code point << 2
}

// streamMarks are the marks flent's rrul gives its four streams each way,
// in order: best effort, background (CS1), CS5 and expedited forwarding.
// A fifth stream starts over at BE.
var streamMarks = []mark{{"BE", 0}, {"BK", 8 << 2}, {"CS5", 40 << 2}, {"EF", 46 << 2}}

// bestEffort is the mark of every stream and probe without DSCP marks
// (rrul_be).
var bestEffort = mark{"BE", 0}

// preset is one of the flent tests rrul() runs by name: how many streams
// go which way, and whether they are marked.
type preset struct {
	streams   int
	direction string
	dscp      bool
}

// presets are the members of flent's RRUL family people run most; the
// options a call gives beside preset= win over them.
var presets = map[string]preset{
	"rrul":              {4, "both", true},
	"rrul_be":           {4, "both", false},
	"tcp_upload":        {1, "up", false},
	"tcp_download":      {1, "down", false},
	"tcp_bidirectional": {1, "both", false},
}

// presetNames lists presets in the order help() gives them.
var presetNames = []string{"rrul", "rrul_be", "tcp_upload", "tcp_download", "tcp_bidirectional"}

// rrulConfig is what one rrul() call runs.
type rrulConfig struct {
	preset   string
	target   target
	streams  int
	up, down bool
	dscp     bool
	duration time.Duration // the loaded phase
	idle     time.Duration // the probes alone, before it
	interval time.Duration
}

// Defaults of rrul(): flent runs 60 s with 0.2 s steps; a script's first
// look wants less.
const (
	defaultRRULDuration = 10 * time.Second
	defaultRRULIdle     = 2 * time.Second
	defaultRRULInterval = 200 * time.Millisecond
	maxStreams          = 32
)

// rrulBuiltin: rrul(host=None, port=None, preset="rrul", streams=None,
// direction=None, dscp=None, duration="10s", idle="2s", interval=0.2).
func rrulBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r, err := newRunner(th, b.Name())
	if err != nil {
		return nil, err
	}
	cfg, err := rrulArgs(r, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	idleTests, loadTests, err := cfg.tests()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	idle, err := r.together(idleTests, nil)
	if err != nil {
		return nil, err
	}
	loaded, err := r.together(loadTests, nil)
	if err != nil {
		return nil, err
	}
	if err := nothingDone(b.Name(), append(idleTests, loadTests...), append(idle, loaded...)); err != nil {
		return nil, err
	}
	return newRRUL(cfg, idle, loaded)
}

// rrulArgs reads a call's options into its config.
func rrulArgs(r *runner, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (*rrulConfig, error) {
	var host, name string = "", "rrul"
	var port int
	var streams, dscp, direction starlark.Value = starlark.None, starlark.None, starlark.None
	var duration, idle, interval starlark.Value = starlark.None, starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "host?", &host, "port?", &port, "preset?", &name,
		"streams?", &streams, "direction?", &direction, "dscp?", &dscp,
		"duration?", &duration, "idle?", &idle, "interval?", &interval); err != nil {
		return nil, err
	}
	p, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("%s: preset %q is not one of %s", b.Name(), name, strings.Join(presetNames, ", "))
	}
	cfg := &rrulConfig{preset: name, streams: p.streams, dscp: p.dscp}
	var err error
	if cfg.target, err = targetOf(r.env, host, port); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if streams != starlark.None {
		n, err := starlark.AsInt32(streams)
		if err != nil || n < 1 || n > maxStreams {
			return nil, fmt.Errorf("%s: streams must be an int from 1 to %d (each way), got %s", b.Name(), maxStreams, streams)
		}
		cfg.streams = n
	}
	dir := p.direction
	if direction != starlark.None {
		s, ok := starlark.AsString(direction)
		if !ok || (s != "both" && s != "up" && s != "down") {
			return nil, fmt.Errorf(`%s: direction must be "both", "up" or "down", got %s`, b.Name(), direction)
		}
		dir = s
	}
	cfg.up, cfg.down = dir != "down", dir != "up"
	if dscp != starlark.None {
		v, ok := dscp.(starlark.Bool)
		if !ok {
			return nil, fmt.Errorf("%s: dscp must be True or False, got %s", b.Name(), dscp.Type())
		}
		cfg.dscp = bool(v)
	}
	for _, d := range []struct {
		name string
		v    starlark.Value
		dst  *time.Duration
		def  time.Duration
	}{{"duration", duration, &cfg.duration, defaultRRULDuration}, {"idle", idle, &cfg.idle, defaultRRULIdle},
		{"interval", interval, &cfg.interval, defaultRRULInterval}} {
		if *d.dst, err = durationArg(d.v, d.def); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", b.Name(), d.name, err)
		}
	}
	if cfg.interval > cfg.duration || cfg.interval > cfg.idle {
		return nil, fmt.Errorf("%s: interval (%v) must be shorter than duration (%v) and idle (%v)", b.Name(), cfg.interval, cfg.duration, cfg.idle)
	}
	return cfg, nil
}

// durationArg reads a length: seconds, or a string such as "10s"; None
// is def. It must be positive.
func durationArg(v starlark.Value, def time.Duration) (time.Duration, error) {
	var d time.Duration
	var err error
	switch x := v.(type) {
	case starlark.NoneType:
		return def, nil
	case starlark.String:
		d, err = spec.ParseDuration(string(x))
	case starlark.Int, starlark.Float:
		f, _ := starlark.AsFloat(x)
		d, err = spec.Seconds(f)
	default:
		return 0, fmt.Errorf("want seconds (a number) or a string such as \"10s\", got %s", v.Type())
	}
	if err == nil && d <= 0 {
		err = fmt.Errorf("must be positive, got %v", d)
	}
	return d, err
}

// probeTests are the latency probes of a phase: a TCP request/response
// (one connection, nodelay) and a UDP one, as flent's "Ping (ms)" series,
// the UDP probe marked EF when the streams are marked.
func (c *rrulConfig) probeTests(d time.Duration) ([]test, error) {
	udpMark := bestEffort
	if c.dscp {
		udpMark = mark{"EF", 46 << 2}
	}
	tcp, err := newTest("TCP RR "+bestEffort.name, "tcp_rr", c.target, d, c.interval)
	if err != nil {
		return nil, err
	}
	tcp.s.NoDelay = true
	tcp.probe = true
	udp, err := newTest("UDP RR "+udpMark.name, "udp_rr", c.target, d, c.interval)
	if err != nil {
		return nil, err
	}
	udp.probe = true
	if c.dscp {
		udp = udp.withTOS(udpMark.tos)
	}
	return []test{tcp, udp}, nil
}

// tests returns the tests of the idle phase (the probes alone) and of the
// loaded one (the streams and the probes, all started together).
func (c *rrulConfig) tests() (idle, loaded []test, err error) {
	if idle, err = c.probeTests(c.idle); err != nil {
		return nil, nil, err
	}
	for _, dir := range []struct {
		on              bool
		label, workload string
	}{{c.up, "upload", "tcp_stream"}, {c.down, "download", "tcp_maerts"}} {
		if !dir.on {
			continue
		}
		for i := range c.streams {
			m := bestEffort
			if c.dscp {
				m = streamMarks[i%len(streamMarks)]
			}
			name := fmt.Sprintf("TCP %s %s", dir.label, m.name)
			if c.streams > len(streamMarks) || (!c.dscp && c.streams > 1) {
				name = fmt.Sprintf("%s %d", name, i+1)
			}
			t, err := newTest(name, dir.workload, c.target, c.duration, c.interval)
			if err != nil {
				return nil, nil, err
			}
			t = t.bulk()
			t.starvable = true
			if c.dscp {
				t = t.withTOS(m.tos)
			}
			loaded = append(loaded, t)
		}
	}
	probes, err := c.probeTests(c.duration)
	if err != nil {
		return nil, nil, err
	}
	return idle, append(loaded, probes...), nil
}
