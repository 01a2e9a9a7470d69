//go:build !linux

package netns

import (
	"context"
	"errors"
	"net/netip"
	"os/exec"
	"testing"
)

// Network namespaces exist only on Linux. Elsewhere Available and New skip
// the test, so the methods below are never reached through them; they fail
// or skip all the same.

func errUnsupported(what string) error {
	return errors.New("netns: " + what + ": network namespaces exist only on Linux: " + errors.ErrUnsupported.Error())
}

// Available skips the test: network namespaces exist only on Linux.
func Available(t testing.TB) {
	t.Helper()
	t.Skip("netns: skipping, network namespaces exist only on Linux")
}

// New skips the test: network namespaces exist only on Linux.
func New(t testing.TB, name string) *NS {
	t.Helper()
	Available(t)
	return nil
}

// Link skips the test: network namespaces exist only on Linux.
func Link(t testing.TB, a, b *NS, addrA, addrB string) *Veth {
	t.Helper()
	Available(t)
	return nil
}

// AddAddr skips the test: network namespaces exist only on Linux.
func (ns *NS) AddAddr(t testing.TB, dev, cidr string) netip.Prefix {
	t.Helper()
	Available(t)
	return netip.Prefix{}
}

// AddRoute skips the test: network namespaces exist only on Linux.
func (ns *NS) AddRoute(t testing.TB, dst, dev, via string) {
	t.Helper()
	Available(t)
}

// Sysctl skips the test: network namespaces exist only on Linux.
func (ns *NS) Sysctl(t testing.TB, key, value string) {
	t.Helper()
	Available(t)
}

// ReadSysctl skips the test: network namespaces exist only on Linux.
func (ns *NS) ReadSysctl(t testing.TB, key string) string {
	t.Helper()
	Available(t)
	return ""
}

// Do returns an error: network namespaces exist only on Linux.
func (ns *NS) Do(fn func() error) error { return errUnsupported("do") }

// ReadCounters returns an error: the counters are read from Linux's /proc.
func ReadCounters() (map[string]uint64, error) { return nil, errUnsupported("read counters") }

// Counters skips the test: network namespaces exist only on Linux.
func (ns *NS) Counters(t testing.TB) map[string]uint64 {
	t.Helper()
	Available(t)
	return nil
}

// Command returns a command that fails to start: network namespaces exist
// only on Linux.
func (ns *NS) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Err = errUnsupported("command")
	return cmd
}

// Run skips the test: network namespaces exist only on Linux.
func (ns *NS) Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	Available(t)
	return ""
}

// Start skips the test: network namespaces exist only on Linux.
func (ns *NS) Start(t testing.TB, name string, args ...string) *Proc {
	t.Helper()
	Available(t)
	return nil
}

// Stop does nothing: no process can have been started.
func (p *Proc) Stop() error { return nil }

// Leftovers returns nothing: no namespace can have been made.
func Leftovers() ([]string, error) { return nil, nil }

// SweepStale returns nothing: there are no namespaces to sweep.
func SweepStale() ([]string, error) { return nil, nil }
