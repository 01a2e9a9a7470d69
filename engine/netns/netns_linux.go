package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ipTimeout bounds every ip(8) command, so that a wedged one fails the test
// instead of hanging it.
const ipTimeout = 10 * time.Second

// killTimeout bounds how long cleanup waits for killed processes to go.
const killTimeout = 10 * time.Second

// Available skips the test, with a message saying why, unless this process
// can make network namespaces: it must run as root with CAP_SYS_ADMIN, and
// iproute2's ip command must work. [New] calls it, so tests need not.
func Available(t testing.TB) {
	t.Helper()
	if err := available(); err != nil {
		t.Skipf("netns: skipping, network namespaces are not available: %v", err)
	}
}

func available() error {
	if euid := os.Geteuid(); euid != 0 {
		return fmt.Errorf("the test must run as root (euid is %d)", euid)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("iproute2's ip command is needed: %v", err)
	}
	if err := runIP("netns", "list"); err != nil {
		return fmt.Errorf("ip netns list: %v", err)
	}
	if err := probeNamespaces(); err != nil {
		return fmt.Errorf("cannot enter one (no CAP_SYS_ADMIN?): %s", bare(err))
	}
	return nil
}

// New makes a network namespace named ns-<pid>-<name> for the test, with
// its loopback interface up, and registers its removal with t.Cleanup. name
// is 1 to 32 letters, digits, '-' or '_'; if the namespace exists already
// (two calls with the same name) a -2, -3, ... suffix makes the name
// unique. New skips the test if namespaces are not available (see
// [Available]), and first removes namespaces left behind by test processes
// that have exited (see [SweepStale]).
//
// At cleanup every process still inside the namespace is killed and
// waited for, then the namespace is deleted; a failure there fails the
// test.
func New(t testing.TB, name string) *NS {
	t.Helper()
	if err := checkName(name); err != nil {
		t.Fatal(err)
	}
	Available(t)
	if swept, err := SweepStale(); err != nil {
		t.Logf("netns: removing stale namespaces: %v", err)
	} else if len(swept) > 0 {
		t.Logf("netns: removed stale namespaces %s", strings.Join(swept, " "))
	}
	base := fmt.Sprintf("%s%d-%s", namePrefix, os.Getpid(), name)
	full := base
	for i := 2; ; i++ {
		err := runIP("netns", "add", full)
		if err == nil {
			break
		}
		if _, serr := os.Lstat(runDir + "/" + full); serr != nil || i > 1000 {
			t.Fatalf("netns: create namespace %s: %v", full, err)
		}
		full = fmt.Sprintf("%s-%d", base, i) // taken: try the next suffix
	}
	ns := &NS{name: full, path: runDir + "/" + full}
	ino, err := inode(ns.path)
	if err != nil {
		// Remove it at once: without its inode cleanup could not find the
		// processes inside it.
		if derr := runIP("netns", "del", full); derr != nil {
			err = errors.Join(err, derr)
		}
		t.Fatalf("netns: create namespace %s: %v", full, err)
	}
	ns.ino = ino
	t.Cleanup(func() {
		if err := destroy(ns.name, ns.ino); err != nil {
			t.Errorf("%v", err)
		}
	})
	if err := runIP("-n", full, "link", "set", "lo", "up"); err != nil {
		t.Fatalf("netns: bring lo up in %s: %v", full, err)
	}
	return ns
}

// Link makes a veth pair with one end in a and the other in b, gives the
// ends the addresses addrA and addrB (CIDR form, like "198.18.0.1/24" or
// "2001:2::1/64"; IPv6 addresses skip duplicate address detection so they
// work at once) and brings both up. The ends are named veth0, veth1, ... in
// each namespace, in order of creation. Addresses outside 198.18.0.0/15 and
// 2001:2::/48 fail the test before anything is made. The pair is deleted at
// cleanup (deleting a namespace would delete it too).
func Link(t testing.TB, a, b *NS, addrA, addrB string) *Veth {
	t.Helper()
	pa, err := CheckCIDR(addrA)
	if err == nil {
		var pb netip.Prefix
		pb, err = CheckCIDR(addrB)
		if err == nil && pa.Addr().Is4() != pb.Addr().Is4() {
			err = fmt.Errorf("%s and %s are of different families", addrA, addrB)
		}
	}
	if err != nil {
		t.Fatalf("netns: link %s (%s) to %s (%s): %s", a.name, addrA, b.name, addrB, bare(err))
	}
	v := &Veth{A: a, B: b, DevA: a.newDev(), DevB: b.newDev()}
	if err := runIP("-n", a.name, "link", "add", v.DevA, "type", "veth",
		"peer", "name", v.DevB, "netns", b.name); err != nil {
		t.Fatalf("netns: add veth %s in %s to %s in %s: %v", v.DevA, a.name, v.DevB, b.name, err)
	}
	t.Cleanup(func() {
		err := runIP("-n", a.name, "link", "del", v.DevA)
		if err != nil && !strings.Contains(err.Error(), "Cannot find device") && exists(a.path) {
			t.Errorf("netns: delete veth %s in %s: %v", v.DevA, a.name, err)
		}
	})
	for _, end := range []struct {
		ns  *NS
		dev string
	}{{a, v.DevA}, {b, v.DevB}} {
		if err := runIP("-n", end.ns.name, "link", "set", end.dev, "up"); err != nil {
			t.Fatalf("netns: bring %s up in %s: %v", end.dev, end.ns.name, err)
		}
	}
	v.AddrA = a.AddAddr(t, v.DevA, addrA)
	v.AddrB = b.AddAddr(t, v.DevB, addrB)
	return v
}

// AddAddr adds an address in CIDR form ("198.18.1.7/32", "2001:2::1/64")
// to device dev in the namespace and returns it parsed. IPv6 addresses skip
// duplicate address detection, so they can be bound at once. Addresses
// outside 198.18.0.0/15 and 2001:2::/48 fail the test.
func (ns *NS) AddAddr(t testing.TB, dev, cidr string) netip.Prefix {
	t.Helper()
	p, err := CheckCIDR(cidr)
	if err != nil {
		t.Fatalf("netns: add address %s to %s in %s: %s", cidr, dev, ns.name, bare(err))
	}
	args := []string{"-n", ns.name, "addr", "add", p.String(), "dev", dev}
	if p.Addr().Is6() {
		args = append(args, "nodad")
	}
	if err := runIP(args...); err != nil {
		t.Fatalf("netns: add address %s to %s in %s: %v", p, dev, ns.name, err)
	}
	return p
}

// AddRoute adds a route in the namespace to dst (CIDR form) through device
// dev, via the gateway address via; either dev or via may be "". dst and
// via must lie inside 198.18.0.0/15 or 2001:2::/48. Use it when a
// namespace must answer addresses that are not on its own links, such as
// extra source addresses added to the far end with AddAddr.
func (ns *NS) AddRoute(t testing.TB, dst, dev, via string) {
	t.Helper()
	p, err := CheckCIDR(dst)
	args := []string{"-n", ns.name, "route", "add", p.Masked().String()}
	if err == nil && via != "" {
		var gw netip.Addr
		if gw, err = netip.ParseAddr(via); err == nil {
			err = CheckAddr(gw)
		}
		args = append(args, "via", via)
	}
	if err == nil && dev == "" && via == "" {
		err = errors.New("a route needs a device or a gateway")
	}
	if dev != "" {
		args = append(args, "dev", dev)
	}
	if err == nil {
		err = runIP(args...)
	}
	if err != nil {
		t.Fatalf("netns: add route to %s (dev %q, via %q) in %s: %s", dst, dev, via, ns.name, bare(err))
	}
}

// Sysctl sets a sysctl inside the namespace, by writing its file under
// /proc/sys from a thread in the namespace, and fails the test unless the
// value reads back the same (numbers compare by value, whitespace between
// fields is free). key is dotted ("net.ipv4.tcp_fastopen") or slashed
// ("net/ipv4/conf/veth0.100/forwarding"), and must be under net: only those
// keys are private to a namespace, so the machine's own settings are never
// touched. (Keys under net that the kernel shares between namespaces are
// either hidden or read-only inside one, so writing them fails.)
func (ns *NS) Sysctl(t testing.TB, key, value string) {
	t.Helper()
	p, err := sysctlPath(key)
	if err == nil {
		err = ns.Do(func() error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			if _, err := f.WriteString(value); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		})
	}
	if err != nil {
		t.Fatalf("netns: sysctl %s=%s in %s: %s", key, value, ns.name, bare(err))
	}
	if got := ns.ReadSysctl(t, key); !sameSysctl(value, got) {
		t.Fatalf("netns: sysctl %s=%s in %s: reads back %q", key, value, ns.name, got)
	}
}

// ReadSysctl returns a sysctl's value inside the namespace, without the
// trailing newline. key is as for Sysctl.
func (ns *NS) ReadSysctl(t testing.TB, key string) string {
	t.Helper()
	p, err := sysctlPath(key)
	var data []byte
	if err == nil {
		err = ns.Do(func() (err error) {
			data, err = os.ReadFile(p)
			return err
		})
	}
	if err != nil {
		t.Fatalf("netns: read sysctl %s in %s: %s", key, ns.name, bare(err))
	}
	return strings.TrimSuffix(string(data), "\n")
}

// Leftovers lists the namespaces this test process made that still exist,
// sorted. After a test's cleanup has run it should be empty; tests running
// in parallel in the same process see each other's namespaces.
func Leftovers() ([]string, error) {
	names, err := listNamespaces()
	if err != nil {
		return nil, err
	}
	own := fmt.Sprintf("%s%d-", namePrefix, os.Getpid())
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, own) {
			out = append(out, n)
		}
	}
	return out, nil
}

// SweepStale deletes the namespaces named ns-<pid>-... whose process pid no
// longer exists: namespaces left by a test binary that crashed or was
// killed before its cleanup ran. Processes still inside them are killed
// first. It returns the names it deleted. New calls it; a TestMain may too.
// It trusts process ids, so it must not share /var/run/netns with test
// processes in another PID namespace.
func SweepStale() ([]string, error) {
	names, err := listNamespaces()
	if err != nil {
		return nil, err
	}
	var swept []string
	var errs []error
	for _, n := range names {
		pid, ok := ownerPid(n)
		if !ok || pid == os.Getpid() || alive(pid) {
			continue
		}
		ino, err := inode(runDir + "/" + n)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // another sweeper was quicker
			}
			errs = append(errs, fmt.Errorf("netns: stale namespace %s: %w", n, err))
			continue
		}
		if err := destroy(n, ino); err != nil {
			if exists(runDir + "/" + n) {
				errs = append(errs, err)
			}
			continue
		}
		swept = append(swept, n)
	}
	return swept, errors.Join(errs...)
}

// destroy kills the processes inside the namespace called name, whose inode
// is ino, and deletes it. It looks for processes again once the name is
// gone, to catch one that entered the namespace meanwhile (a program being
// started with "ip netns exec" as the cleanup ran): a process inside would
// keep the namespace, and its interfaces, alive with no name to find them.
func destroy(name string, ino uint64) error {
	if err := killIn(ino); err != nil {
		return fmt.Errorf("netns: delete namespace %s: %v", name, err)
	}
	if err := runIP("netns", "del", name); err != nil {
		return fmt.Errorf("netns: delete namespace %s: %v", name, err)
	}
	if exists(runDir + "/" + name) {
		return fmt.Errorf("netns: delete namespace %s: it still exists after ip netns del", name)
	}
	if err := killIn(ino); err != nil {
		return fmt.Errorf("netns: deleted namespace %s: %v", name, err)
	}
	return nil
}

// killIn sends SIGKILL to every process (other than this one) whose main
// thread is in the namespace with inode ino, until none is left or
// killTimeout has passed. Killed processes stop counting once they are
// zombies, whose namespace links are gone.
func killIn(ino uint64) error {
	want := fmt.Sprintf("net:[%d]", ino)
	deadline := time.Now().Add(killTimeout)
	for {
		pids, err := pidsIn(want)
		if err != nil || len(pids) == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v still inside after SIGKILL and %v", pids, killTimeout)
		}
		for _, pid := range pids {
			unix.Kill(pid, unix.SIGKILL) // ESRCH: it just went
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pidsIn lists the processes other than this one whose /proc/<pid>/ns/net
// link reads want ("net:[4026532345]").
func pidsIn(want string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if link, err := os.Readlink("/proc/" + e.Name() + "/ns/net"); err == nil && link == want {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// listNamespaces returns the names of all namespaces ip(8) knows, sorted.
func listNamespaces() ([]string, error) {
	entries, err := os.ReadDir(runDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("netns: list namespaces: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// inode returns the inode of the namespace mounted at path.
func inode(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return st.Ino, nil
}

// alive reports whether a process with id pid exists.
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// runIP runs ip(8) with args and returns an error holding its output if it
// fails or takes longer than ipTimeout.
func runIP(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), ipTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(out.String())
	switch {
	case ctx.Err() != nil:
		msg = fmt.Sprintf("ip %s: timed out after %v: %s", strings.Join(args, " "), ipTimeout, msg)
	case msg == "":
		msg = fmt.Sprintf("ip %s: %v", strings.Join(args, " "), err)
	}
	return errors.New(msg)
}

// bare returns err's message without the package's "netns: " prefix, for
// errors quoted inside a message that already has it.
func bare(err error) string {
	return strings.TrimPrefix(err.Error(), "netns: ")
}
