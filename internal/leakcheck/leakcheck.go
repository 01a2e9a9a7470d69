// Package leakcheck is the check a test binary runs once its tests have
// ended (from TestMain, through Main): that they left nothing behind them
// on the machine: no process they started (a `netscript serve`, a
// netserver, an embedded server), no network namespace of this binary's
// (engine/netns names them ns-<pid>-...), no socket of this process still
// listening. What it finds it names, then removes (processes killed,
// namespaces deleted), so a leak fails the suite once instead of lingering.
package leakcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Settle is how long Main waits for what the tests started to go away on
// its own (a daemon killed in a cleanup still exiting) before it calls
// what is left a leak.
const Settle = 15 * time.Second

// netnsDir is where ip(8), and so engine/netns, keeps named namespaces.
const netnsDir = "/var/run/netns"

// Main runs the tests of m and then checks that they left nothing behind;
// it returns the exit status for os.Exit: m's, or 1 when something was
// left (it is named on stderr).
func Main(m *testing.M) int {
	code := m.Run()
	if leaks := Wait(Settle); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "leakcheck: the tests left %d things behind (now removed):\n  %s\n",
			len(leaks), strings.Join(leaks, "\n  "))
		Remove()
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Wait returns what is still left after waiting up to d for it to go:
// each a line naming it; none when nothing was left.
func Wait(d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		leaks := Find()
		if len(leaks) == 0 || time.Now().After(deadline) {
			return leaks
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Find names what this process's tests left right now: its descendant
// processes (not zombies), its namespaces, its listening sockets.
func Find() []string {
	var out []string
	for _, p := range Descendants(os.Getpid()) {
		out = append(out, fmt.Sprintf("process %d: %s", p, cmdline(p)))
	}
	for _, n := range namespaces() {
		out = append(out, "network namespace "+n)
	}
	for _, l := range listening() {
		out = append(out, "listening socket "+l)
	}
	return out
}

// Remove kills this process's descendants and deletes its namespaces.
func Remove() {
	for _, p := range Descendants(os.Getpid()) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	for _, n := range namespaces() {
		_ = exec.Command("ip", "netns", "delete", n).Run()
	}
}

// Descendants lists the live (not zombie) processes below pid, by pid; a
// test uses it to name what a process it is about to kill has started.
func Descendants(pid int) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]int{}
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		live, pp, ok := parseStat(b)
		if !ok || !live {
			continue
		}
		if p, err := strconv.Atoi(filepath.Base(filepath.Dir(d))); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	sort.Ints(out)
	return out
}

// cmdline is a process's command line, as ps shows it.
func cmdline(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return "?"
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// namespaces lists the named network namespaces of this process.
func namespaces() []string {
	ents, _ := os.ReadDir(netnsDir)
	prefix := fmt.Sprintf("ns-%d-", os.Getpid())
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// listening lists this process's TCP sockets in the LISTEN state, by
// local address.
func listening() []string {
	mine := map[string]bool{}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		l, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if len(f) >= 10 && f[3] == "0A" && mine[f[9]] {
				out = append(out, f[1]+" (hex address:port, "+filepath.Base(table)+")")
			}
		}
	}
	return out
}
