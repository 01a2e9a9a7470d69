package netns

import (
	"fmt"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"sync"
)

// runDir is where ip(8) keeps the names of network namespaces
// (NETNS_RUN_DIR); each file in it is a bind mount of a namespace.
const runDir = "/var/run/netns"

// namePrefix starts the name of every namespace this package makes; the
// test process's id follows it.
const namePrefix = "ns-"

// NS is a network namespace made by [New] for one test. Its methods may be
// called from any goroutine.
type NS struct {
	name string // full name, e.g. ns-4242-client
	path string // runDir/name
	ino  uint64 // inode of the namespace, to find processes inside it

	mu      sync.Mutex
	nextDev int // number of the next veth made in this namespace
}

// Name returns the namespace's full name, e.g. "ns-4242-client", as ip(8)
// knows it ("ip -n <name> addr").
func (ns *NS) Name() string { return ns.name }

// Path returns the file that holds the namespace, e.g.
// "/var/run/netns/ns-4242-client"; opening it gives a file descriptor for
// setns(2).
func (ns *NS) Path() string { return ns.path }

// String returns the namespace's name.
func (ns *NS) String() string { return ns.name }

// newDev returns the name of the next veth in ns: veth0, veth1, ...
func (ns *NS) newDev() string {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	d := fmt.Sprintf("veth%d", ns.nextDev)
	ns.nextDev++
	return d
}

// Veth is a veth pair made by [Link]: device DevA in namespace A with
// address AddrA, joined to device DevB in namespace B with address AddrB.
type Veth struct {
	A, B         *NS
	DevA, DevB   string
	AddrA, AddrB netip.Prefix
}

// checkName reports whether name can be a namespace's short name: 1 to 32
// ASCII letters, digits, '-' or '_', starting with a letter or digit.
func checkName(name string) error {
	ok := len(name) >= 1 && len(name) <= 32
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		ok = alnum || i > 0 && (c == '-' || c == '_')
	}
	if !ok {
		return fmt.Errorf("netns: namespace name %q: want 1 to 32 letters, digits, '-' or '_', starting with a letter or digit", name)
	}
	return nil
}

// ownerPid returns the process id in a namespace name made by this package
// ("ns-4242-client" gives 4242), or false if name is not one of ours.
func ownerPid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, namePrefix)
	if !ok {
		return 0, false
	}
	digits, short, ok := strings.Cut(rest, "-")
	if !ok || short == "" || digits == "" || digits[0] == '0' || digits[0] == '+' {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// sysctlPath turns a sysctl key into its file under /proc/sys. The key is
// either dotted ("net.ipv4.tcp_fastopen") or, when a component itself has a
// dot (an interface called veth0.100), slashed
// ("net/ipv4/conf/veth0.100/forwarding"). Only keys under net are accepted:
// only those are private to a network namespace; written from inside one,
// anything else would change the whole machine.
func sysctlPath(key string) (string, error) {
	rel := key
	if !strings.Contains(key, "/") {
		rel = strings.ReplaceAll(key, ".", "/")
	}
	rel = strings.TrimPrefix(rel, "/proc/sys/")
	if rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") ||
		!strings.HasPrefix(rel, "net/") || strings.Contains("/"+rel+"/", "/../") {
		return "", fmt.Errorf("netns: sysctl %q: only keys under net (like net.ipv4.tcp_fastopen) are private to a namespace", key)
	}
	return "/proc/sys/" + rel, nil
}

// sameSysctl reports whether the value read back from a sysctl file, got,
// matches the value written, want: the same whitespace-separated fields,
// each equal as text or as a number (so "03" matches "3", and
// "1024 65535" matches "1024\t65535").
func sameSysctl(want, got string) bool {
	w, g := strings.Fields(want), strings.Fields(got)
	if len(w) != len(g) {
		return false
	}
	for i := range w {
		if w[i] == g[i] {
			continue
		}
		a, err1 := strconv.ParseInt(w[i], 0, 64)
		b, err2 := strconv.ParseInt(g[i], 10, 64)
		if err1 != nil || err2 != nil || a != b {
			return false
		}
	}
	return true
}
