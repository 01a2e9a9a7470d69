package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"netscript/session"
)

// permFlags are the permissions and limits given before a script:
// --allow-read DIR, --allow-write DIR, --allow-net[=HOST,...], --yes and
// the --max-* limits.
type permFlags struct {
	readDirs  []string
	writeDirs []string
	allNet    bool
	netHosts  []string
	yes       bool
	limits    session.Limits
}

// parsePermFlag reads one permission or limit flag at args[0]; ok is false
// when args[0] is none of them.
func (p *permFlags) parse(args []string) (rest []string, ok bool, err error) {
	a := args[0]
	switch {
	case a == "--yes" || a == "-y":
		p.yes = true
		return args, true, nil
	case a == "--allow-net":
		p.allNet = true
		return args, true, nil
	case strings.HasPrefix(a, "--allow-net="):
		for _, h := range strings.Split(strings.TrimPrefix(a, "--allow-net="), ",") {
			if h = strings.TrimSpace(h); h != "" {
				p.netHosts = append(p.netHosts, h)
			}
		}
		return args, true, nil
	case isFileFlag(a, "allow-read"):
		d, rest, err := fileFlag("allow-read", args)
		p.readDirs = append(p.readDirs, d)
		return rest, true, err
	case isFileFlag(a, "allow-write"):
		d, rest, err := fileFlag("allow-write", args)
		p.writeDirs = append(p.writeDirs, d)
		return rest, true, err
	}
	for _, l := range limitFlags {
		if isValueFlag(a, l.name) {
			v, rest, err := valueFlag(l.name, l.unit, args)
			if err != nil {
				return rest, true, err
			}
			n, err := strconv.ParseUint(v, 10, 63)
			if err != nil {
				return rest, true, fmt.Errorf("--%s takes %s, got %q", l.name, l.unit, v)
			}
			l.set(&p.limits, n)
			return rest, true, nil
		}
	}
	return args, false, nil
}

// limitFlags are the --max-* flags: each sets one field of Limits.
var limitFlags = []struct {
	name, unit string
	set        func(*session.Limits, uint64)
}{
	{"max-steps", "a number of Starlark steps", func(l *session.Limits, n uint64) { l.Steps = n }},
	{"max-memory", "megabytes", func(l *session.Limits, n uint64) { l.MemoryBytes = n << 20 }},
	{"max-script-size", "kilobytes", func(l *session.Limits, n uint64) { l.ScriptBytes = int64(n) << 10 }},
	{"max-picture-pixels", "a number of pixels (width times height)", func(l *session.Limits, n uint64) { l.PicturePixels = int64(n) }},
	{"max-picture-points", "a number of points", func(l *session.Limits, n uint64) { l.PicturePoints = int(n) }},
}

// permissions are what a script file (or a replayed one) may do: read
// beneath its own directory and each --allow-read DIR, write beneath the
// working directory and each --allow-write DIR, reach the embedded server,
// --host and every host the person typed (--allow-net, NAME=VALUE values),
// and ask on a terminal about any other host.
func (p permFlags) permissions(sc *session.Script, o flags) *session.Permissions {
	perms := &session.Permissions{ReadDirs: p.readDirs, WriteDirs: p.writeDirs, AllNet: p.allNet}
	if !strings.HasPrefix(sc.Name, "<") {
		if abs, err := filepath.Abs(sc.Name); err == nil {
			perms.Root = filepath.Dir(abs)
		}
	}
	for _, h := range p.netHosts {
		perms.AllowHost(h)
	}
	if o.target.Host != "" {
		perms.AllowHost(o.target.Host)
	}
	perms.AllowArgHosts(sc.Args)
	if isTerminal(os.Stdin) && isTerminal(os.Stderr) {
		perms.Ask = asker(sc.Name, os.Stdin, os.Stderr)
	}
	return perms
}

// asker asks on the terminal, once a host, whether the script may reach
// it, in Deno's manner: what asks, what for, the flag that would not ask,
// and a default of no. Branches of parallel() ask one at a time.
func asker(name string, in io.Reader, out io.Writer) func(host, what string) bool {
	var mu sync.Mutex
	r := bufio.NewReader(in)
	return func(host, what string) bool {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "\nnetscript: %s requests net access to %q:\n  %s\n  (run again with --allow-net %s to bypass this prompt)\nAllow %s for the rest of this run? [y/N] ",
			escapeTerm(name), host, escapeTerm(what), host, host)
		line, _ := r.ReadString('\n')
		yes := strings.EqualFold(strings.TrimSpace(line), "y") || strings.EqualFold(strings.TrimSpace(line), "yes")
		if !yes {
			fmt.Fprintf(out, "netscript: denied net access to %q\n", host)
		}
		return yes
	}
}

// escapeTerm makes s safe to print on a terminal: every control character
// (escape sequences, carriage returns, bells) but newline and tab becomes
// its Go escape, so text from a record or a script cannot retitle or
// rewrite the terminal.
func escapeTerm(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || r == '\u202e' || r == '\u2066' || r == '\u2067' || r == '\u2068' || r == '\u2069' || r == '\u202a' || r == '\u202b' || r == '\u202c' || r == '\u202d':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
