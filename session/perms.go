package session

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"netscript/engine/spec"
)

// Permissions are what the person running a script allows it beyond its
// own tree: directories it may load from (--allow-read) and write into
// (--allow-write), the hosts it may reach (--allow-net), and how to ask
// about any other host. A nil *Permissions on a session allows
// everything: -c code, the REPL and netperf's command line are the
// person's own typing.
type Permissions struct {
	// Root is the started script's directory, which load() reads beneath.
	Root string
	// ReadDirs are the directories load() may read beneath besides the
	// started script's own (--allow-read DIR).
	ReadDirs []string
	// WriteDirs are the directories a file the script names may be
	// written beneath besides the working directory (--allow-write DIR).
	WriteDirs []string
	// AllNet allows every host (a bare --allow-net).
	AllNet bool
	// Ask, if set, asks the person on a terminal whether the test
	// described may reach host; yes allows host for the rest of the run.
	// Without it a host not allowed is refused.
	Ask func(host, what string) bool

	mu    sync.Mutex
	hosts []string // allowed hosts, normalised (see hostKey)
}

// AllowHost allows h (a name or address, with or without a port) for the
// rest of the run: --allow-net HOST, --host, a NAME=VALUE argument that
// is a host, or a yes at the prompt.
func (p *Permissions) AllowHost(h string) {
	k := hostKey(h)
	if k == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.hosts, k) {
		p.hosts = append(p.hosts, k)
	}
}

// AllowArgHosts allows every argument value that reads as a host or
// address with an optional port, as the person typed it on the command
// line (`H=198.18.0.2`, `SERVER=lab1:12866`).
func (p *Permissions) AllowArgHosts(args map[string]string) {
	for _, v := range args {
		if looksLikeHost(v) {
			p.AllowHost(v)
		}
	}
}

// allowed says whether h may be reached without asking.
func (p *Permissions) allowed(h string) bool {
	if p.AllNet {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.hosts, hostKey(h))
}

// CheckTest decides, before a test sends its first packet, whether it may
// reach the hosts it names: the server (host=), and with client= the
// daemon too, which will be told to reach host. A host not allowed is put
// to Ask once; without Ask, or on a no, the error names --allow-net.
// embedded says the test goes to the embedded loopback server, which is
// always allowed.
func (p *Permissions) CheckTest(sp *spec.Spec, embedded bool) error {
	if p == nil {
		return nil
	}
	var hosts []string
	if sp.Client != "" {
		hosts = append(hosts, sp.Client)
	}
	if !embedded && sp.Host != "" {
		hosts = append(hosts, sp.Host)
	}
	for _, h := range hosts {
		if err := p.check(sp.Workload.String(), h, func() string { return describeTest(sp, h) }); err != nil {
			return err
		}
	}
	return nil
}

// CheckHost decides, before a builtin that reaches a host by itself rather
// than through a test (fleet's discovery through the Kubernetes API or
// DNS, its probes of agents) sends anything there, whether it may: as
// CheckTest does, a host not allowed is put to Ask once, with what (what
// the builtin will do there), and else refused with a *NetRefusedError
// naming who (the builtin) and --allow-net.
func (p *Permissions) CheckHost(who, host, what string) error {
	if p == nil {
		return nil
	}
	return p.check(who, host, func() string { return what })
}

// check allows h, asks about it, or refuses it for who.
func (p *Permissions) check(who, h string, what func() string) error {
	if p.allowed(h) {
		return nil
	}
	if p.Ask != nil && p.Ask(hostKey(h), what()) {
		p.AllowHost(h)
		return nil
	}
	return &NetRefusedError{Workload: who, Host: hostKey(h)}
}

// NetRefusedError is a test (or a builtin that reaches a host itself)
// refused because the person running the script did not allow the host
// it names. It ends the script even with keep_going: it is the runner's
// decision, not the network's failure.
type NetRefusedError struct {
	// Workload is the test's workload, or the builtin refused.
	Workload, Host string
}

func (e *NetRefusedError) Error() string {
	return fmt.Sprintf("%s: not allowed to reach %s; run with --allow-net %s (or --allow-net for every host) to allow it",
		e.Workload, e.Host, e.Host)
}

// describeTest is what a test is about to do to h, for the prompt: the
// workload, the host and port, raw traffic with control=False, and a
// daemon's part.
func describeTest(sp *spec.Spec, h string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s to %s", sp.Workload, sp.Host)
	if sp.Port != 0 {
		fmt.Fprintf(&b, " port %d", sp.Port)
	}
	if sp.DataPort != 0 {
		fmt.Fprintf(&b, ", data port %d", sp.DataPort)
	}
	if sp.NoControl {
		b.WriteString(", raw traffic with control=False (no server asked first)")
	}
	if sp.Client != "" {
		fmt.Fprintf(&b, ", its client side run by the daemon at %s", sp.Client)
		if hostKey(h) == hostKey(sp.Client) {
			fmt.Fprintf(&b, ", which will be told to reach %s", sp.Host)
		}
	}
	return b.String()
}

// hostKey is h without a port, an address in its canonical form, a name
// in lower case: "[::1]:12866" and "::1" are one host.
func hostKey(h string) string {
	host, _, err := SplitHostPort(strings.TrimSpace(h))
	if err != nil {
		host = h
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// looksLikeHost says whether v reads as an address, or a host name, with
// an optional port: what a person types on the command line for a host.
func looksLikeHost(v string) bool {
	host, _, err := SplitHostPort(v)
	if err != nil || host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	// "10" or "fast" alone is a number or a word too, and allowing a word
	// costs nothing the person did not type.
	return NameChars(host)
}

// NameChars says whether s is made as DNS names are: letters, digits, '-'
// and '.', with at least one letter.
func NameChars(s string) bool {
	letter := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9', r == '-', r == '.':
		default:
			return false
		}
	}
	return letter
}
