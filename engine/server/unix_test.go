package server_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/proto"
	"netscript/engine/proto/manual"
	"netscript/engine/result"
	"netscript/engine/server"
	"netscript/engine/spec"
)

// unixWorkloads are the tests over UNIX domain sockets.
var unixWorkloads = []*spec.Workload{spec.UnixRR, spec.UnixCRR, spec.UnixStream, spec.UnixgramRR, spec.UnixgramStream}

// unixNamesOf lists the names of this process's UNIX domain sockets that
// begin with prefix, from /proc/net/unix (abstract ones with their "@").
func unixNamesOf(t *testing.T, prefix string) []string {
	t.Helper()
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 8 && strings.HasPrefix(fs[7], prefix) {
			out = append(out, fs[7])
		}
	}
	return out
}

// TestUnixWorkloads: every test over UNIX domain sockets runs against a
// daemon, with abstract names and with a directory of the daemon's own,
// open and with a token; the two ends agree; the daemon's sockets are
// gone once each test ends (and its directory once it closes).
func TestUnixWorkloads(t *testing.T) {
	parent := t.TempDir()
	abstract := fmt.Sprintf("@netscript-%d-", os.Getpid())
	for _, c := range []struct {
		name string
		cfg  server.Config
	}{
		{"abstract", server.Config{}},
		{"dir", server.Config{UnixDir: parent}},
		{"token", server.Config{Token: token}},
	} {
		srv, ap, th := daemon(t, c.cfg)
		for _, w := range unixWorkloads {
			for _, flows := range []int{1, 3} {
				s := spec.Default(w)
				s.Host, s.Port, s.Duration, s.Flows = ap.Addr().String(), int(ap.Port()), 300*time.Millisecond, flows
				r, err := client.Run(context.Background(), s, client.Options{Threads: th, Token: c.cfg.Token})
				what := fmt.Sprintf("%s %s flows=%d", c.name, w.Name, flows)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if n := r.Remote.Errors["unauthenticated"]; n != 0 {
					t.Errorf("%s: %d of the client's own refused", what, n)
				}
				checkUnixCounts(t, what, w, r.Transactions, r.Discarded, r.BytesSent, r.Remote)
				if r.Config.Family != "unix" || r.RemoteAddress == "" || len(r.Flows) != flows {
					t.Errorf("%s: family %q, remote address %q, %d flows", what, r.Config.Family, r.RemoteAddress, len(r.Flows))
				}
				if !w.Endpoint() {
					for i, f := range r.Flows {
						if f.Remote == nil || f.Remote.BytesReceived == 0 {
							t.Errorf("%s: flow %d has no count of the server's: %+v", what, i, f.Remote)
						}
					}
				}
				// The daemon closes the test's endpoint once it has sent
				// its results, just after the client has them.
				if left := gone(func() []string { return unixNamesOf(t, abstract) }); len(left) > 0 {
					t.Errorf("%s: the daemon's sockets are still there: %v", what, left)
				}
				files := func() []string {
					fs, _ := filepath.Glob(filepath.Join(parent, "netscript-serve-*", "*"))
					return fs
				}
				if left := gone(files); len(left) > 0 {
					t.Errorf("%s: left behind: %v", what, left)
				}
			}
		}
		srv.Close()
		if left, _ := os.ReadDir(parent); len(left) > 0 {
			t.Errorf("%s: the daemon's directory is still there: %v", c.name, left)
		}
	}
}

// gone waits, for a few seconds at most, until list returns nothing, and
// returns what it last returned.
func gone(list func() []string) []string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := list()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkUnixCounts checks a test's counts against the server's.
func checkUnixCounts(t *testing.T, what string, w *spec.Workload, trans, discarded, sent uint64, r *result.Remote) {
	t.Helper()
	switch {
	case w.Bulk:
		if sent == 0 || r.BytesReceived != sent {
			t.Errorf("%s: sent %d, the server received %d", what, sent, r.BytesReceived)
		}
	case w.PerTransaction:
		if trans == 0 || r.Transactions < trans || r.Transactions > trans+discarded {
			t.Errorf("%s: the server answered %d, the client counted %d + %d", what, r.Transactions, trans, discarded)
		}
	default:
		if trans == 0 || r.Transactions != trans+discarded {
			t.Errorf("%s: the server answered %d, the client counted %d + %d", what, r.Transactions, trans, discarded)
		}
	}
}

// dialUnix connects to a UNIX domain stream socket.
func dialUnix(t *testing.T, name string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("unix", name, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestUnixStrangers: in an authenticated session over UNIX domain
// sockets, a stream connection without the session's tag never becomes a
// flow, a connection per transaction from another process is not served,
// and a datagram from a socket the client did not declare is not
// answered; the session's own data is served and counted exactly.
func TestUnixStrangers(t *testing.T) {
	_, ap, _ := daemon(t, server.Config{Token: token})

	t.Run("UNIX_RR", func(t *testing.T) {
		pc, key, ready := session(t, ap, proto.Setup{Test: "UNIX_RR", Request: 1, Response: 1, DurationNs: int64(time.Second)})
		bad := dialUnix(t, ready.DataPath)
		bad.Write(make([]byte, 32))
		dialUnix(t, ready.DataPath) // one that sends nothing
		good := dialUnix(t, ready.DataPath)
		if err := manual.GreetConn(good, key, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		res := finish(t, pc, func() {
			rr(t, good, 100)
			good.(*net.UnixConn).CloseWrite()
			good.SetReadDeadline(time.Now().Add(5 * time.Second))
			good.Read(make([]byte, 1)) // the server's close
		})
		if res.Accepts != 1 || res.Transactions != 100 || res.Errors["unauthenticated"] != 2 {
			t.Fatalf("accepts %d, transactions %d, refused %d; want 1, 100, 2", res.Accepts, res.Transactions, res.Errors["unauthenticated"])
		}
	})

	t.Run("UNIX_CRR", func(t *testing.T) {
		pc, key, ready := session(t, ap, proto.Setup{Test: "UNIX_CRR", Request: 1, Response: 1, DurationNs: int64(time.Second),
			UnixSources: []string{fmt.Sprintf("pid:%d", os.Getpid())}})
		greet := dialUnix(t, ready.DataPath) // the flow's consent connection, before Start
		if err := manual.GreetConn(greet, key, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		greet.Close()
		res := finish(t, pc, func() {
			// Another process, which the session did not declare.
			cmd := exec.Command(os.Args[0], "-test.run=^TestUnixStrangerChild$")
			cmd.Env = append(os.Environ(), "NETSCRIPT_UNIX_STRANGER="+ready.DataPath)
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), "STRANGER REFUSED") {
				t.Errorf("the stranger's connection: %s", out)
			}
			for range 2 {
				rr(t, dialUnix(t, ready.DataPath), 1)
			}
		})
		if res.Accepts != 2 || res.Transactions != 2 || res.Errors["unauthenticated"] != 1 {
			t.Fatalf("accepts %d, transactions %d, refused %d; want 2, 2, 1", res.Accepts, res.Transactions, res.Errors["unauthenticated"])
		}
	})

	t.Run("UNIXGRAM_RR", func(t *testing.T) {
		var r [8]byte
		rand.Read(r[:])
		mine := "@netscript-test-" + hex.EncodeToString(r[:])
		pc, _, ready := session(t, ap, proto.Setup{Test: "UNIXGRAM_RR", Request: 1, Response: 1, DurationNs: int64(time.Second),
			UnixSources: []string{mine}})
		to := &net.UnixAddr{Name: ready.DataPath, Net: "unixgram"}
		res := finish(t, pc, func() {
			stranger, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: mine + "-not", Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer stranger.Close()
			stranger.WriteToUnix([]byte{1}, to)
			stranger.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			if n, _, _ := stranger.ReadFromUnix(make([]byte, 1)); n != 0 {
				t.Error("a stranger's datagram was answered")
			}
			good, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: mine, Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer good.Close()
			b := make([]byte, 1)
			good.SetDeadline(time.Now().Add(5 * time.Second))
			for range 10 {
				if _, err := good.WriteToUnix(b, to); err != nil {
					t.Fatal(err)
				}
				if _, _, err := good.ReadFromUnix(b); err != nil {
					t.Fatal(err)
				}
			}
		})
		if res.Transactions != 10 || res.Errors["unauthenticated"] != 1 {
			t.Fatalf("transactions %d, refused %d; want 10, 1", res.Transactions, res.Errors["unauthenticated"])
		}
	})
}

// TestUnixStrangerChild is TestUnixStrangers's stranger, in a process of
// its own: it connects, sends a request and says whether it was answered.
func TestUnixStrangerChild(t *testing.T) {
	name := os.Getenv("NETSCRIPT_UNIX_STRANGER")
	if name == "" {
		t.Skip("the stranger of TestUnixStrangers")
	}
	c, err := net.Dial("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{1})
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		fmt.Println("STRANGER ANSWERED")
		return
	}
	fmt.Println("STRANGER REFUSED")
}
