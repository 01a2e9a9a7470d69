package main

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

	// typedArgs are the NAME=VALUE pairs the person typed on this command
	// line (not a record's): their hosts are allowed.
	typedArgs map[string]string
	// replayed says the script came from a record: its name and target
	// are the record's author's, not the person's.
	replayed bool
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
	// load() reads beneath the started script's directory; stdin's and a
	// record's script (whose name its author chose) have the working
	// directory.
	perms.Root, _ = os.Getwd()
	if !strings.HasPrefix(sc.Name, "<") && !p.replayed {
		if abs, err := filepath.Abs(sc.Name); err == nil {
			perms.Root = filepath.Dir(abs)
		}
	}
	for _, h := range p.netHosts {
		perms.AllowHost(h)
	}
	if o.target.Host != "" && o.target.From != "record" {
		perms.AllowHost(o.target.Host)
	}
	perms.AllowArgHosts(p.typedArgs)
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

// quoted finds the string literals of a script, for the hosts it names.
var quoted = regexp.MustCompile(`"([^"\\\n]{1,300})"|'([^'\\\n]{1,300})'`)

// namedHosts are the addresses and dotted host names a script's text
// names in string literals, and its recorded target's and args' hosts:
// what a replay shows before it asks.
func namedHosts(src string, args map[string]string, target *session.Target) []string {
	var out []string
	add := func(v string) {
		host, _, err := session.SplitHostPort(v)
		if err != nil || host == "" {
			return
		}
		if _, err := netip.ParseAddr(host); err != nil && !dottedName(host) {
			return
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, m := range quoted.FindAllStringSubmatch(src, -1) {
		add(m[1] + m[2])
	}
	for _, v := range args {
		add(v)
	}
	if target != nil && target.Host != "" {
		add(target.Host)
	}
	return out
}

// dottedName says whether s reads as a DNS name with a dot and a letter in
// it ("lab1.example.net"), not a file name ("sweep.svg") or a word.
func dottedName(s string) bool {
	if !strings.Contains(s, ".") || strings.HasSuffix(s, ".") {
		return false
	}
	switch strings.ToLower(filepath.Ext(s)) {
	case ".svg", ".png", ".pdf", ".star", ".json", ".html", ".csv", ".txt", ".py":
		return false
	}
	return session.NameChars(s)
}

// replayConsent shows the script a record is about to run (its name, its
// length, the hosts it names) and asks on a terminal; --yes runs it
// without asking; with neither a terminal nor --yes it refuses.
func replayConsent(o flags, path string, name, src string, args map[string]string, target *session.Target, in io.Reader, out io.Writer, terminal bool) bool {
	if o.perm.yes {
		return true
	}
	if !terminal {
		fmt.Fprintf(out, "netscript: replay runs the script recorded in %s; with no terminal to ask on, run it with --yes (netscript show %s shows it)\n", escapeTerm(path), escapeTerm(path))
		return false
	}
	lines := strings.Count(src, "\n")
	if src != "" && !strings.HasSuffix(src, "\n") {
		lines++
	}
	fmt.Fprintf(out, "netscript: %s holds the script %q, %d lines (%d bytes)", escapeTerm(path), escapeTerm(name), lines, len(src))
	if hosts := namedHosts(src, args, target); len(hosts) > 0 {
		fmt.Fprintf(out, ", naming %s", escapeTerm(strings.Join(hosts, ", ")))
	}
	fmt.Fprintf(out, ".\n  It runs with a script file's permissions (docs/security.md); `netscript show %s` prints it.\nRun it? [y/N] ", escapeTerm(path))
	line, _ := bufio.NewReader(in).ReadString('\n')
	line = strings.TrimSpace(line)
	return strings.EqualFold(line, "y") || strings.EqualFold(line, "yes")
}
