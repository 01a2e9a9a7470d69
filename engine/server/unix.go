package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// The server side of the tests over UNIX domain sockets. Each test's
// endpoint is a socket of its own with a name no one can guess or take
// first: an abstract name (the default: no file, gone with the socket
// whatever ends the process), or, with Config.UnixDir, a file in a
// directory the server makes there for itself and removes when it closes.
// The name goes to the client in Ready.DataPath.

// unixNames gives the endpoints of a server their names.
type unixNames struct {
	parent string // Config.UnixDir; "" for abstract names

	mu  sync.Mutex
	dir string // the server's own directory under parent, once made
	seq int
}

// next is a new endpoint's name.
func (u *unixNames) next() (string, error) {
	var r [8]byte
	rand.Read(r[:])
	u.mu.Lock()
	defer u.mu.Unlock()
	u.seq++
	base := fmt.Sprintf("netscript-%d-%d-%s", os.Getpid(), u.seq, hex.EncodeToString(r[:]))
	if u.parent == "" {
		return "@" + base, nil
	}
	if u.dir == "" {
		d, err := os.MkdirTemp(u.parent, "netscript-serve-")
		if err != nil {
			return "", fmt.Errorf("a directory for UNIX domain sockets: %w", err)
		}
		// Searchable by others, not listable: a client of another user
		// can reach the socket it was named, not find the others.
		if err := os.Chmod(d, 0o711); err != nil {
			os.Remove(d)
			return "", fmt.Errorf("a directory for UNIX domain sockets: %w", err)
		}
		u.dir = d
	}
	name := filepath.Join(u.dir, fmt.Sprintf("%d.sock", u.seq))
	if len(name) > sock.MaxUnixName {
		return "", fmt.Errorf("UNIX domain socket %s: longer than the %d bytes a socket's name holds (choose a shorter --unix-dir)", name, sock.MaxUnixName)
	}
	return name, nil
}

// close removes the server's directory (its sockets are gone by then).
func (u *unixNames) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.dir != "" {
		os.RemoveAll(u.dir)
		u.dir = ""
	}
}

// openUnix makes one endpoint of a test over UNIX domain sockets: a
// listener, or a datagram socket, bound to a new name.
func (t *test) openUnix(ep *endpoint, names *unixNames) error {
	m := t.setup
	typ := unix.SOCK_STREAM
	if t.w.Datagram {
		typ = unix.SOCK_DGRAM
	}
	if !t.w.Endpoint() {
		if err := workload.NeedFDs(ep.flows+1, fmt.Sprintf("%d flows", ep.flows)); err != nil {
			return fmt.Errorf("flows: the server's process: %w", err)
		}
	}
	name, err := names.next()
	if err != nil {
		return err
	}
	a, err := sock.NewUnixAddr(name)
	if err != nil {
		return err
	}
	fd, err := sock.Open(unix.AF_UNIX, typ, sock.Options{SendBuffer: m.SendBuffer, RecvBuffer: m.RecvBuffer}, netip.AddrPort{})
	if err != nil {
		return fmt.Errorf("data endpoint: %w", err)
	}
	if en := sock.Bind(fd, a); en != 0 {
		sock.Close(fd)
		return fmt.Errorf("data endpoint: %w", &sock.OpError{Op: "bind", Addr: name, Err: en})
	}
	if name[0] != '@' {
		os.Chmod(name, 0o666) // connecting takes write permission; the name is the secret
	}
	if typ == unix.SOCK_STREAM {
		if err := unix.Listen(fd, max(1024, ep.flows)); err != nil {
			sock.Close(fd)
			removeUnix(name)
			return fmt.Errorf("data endpoint: listen %s: %w", name, err)
		}
	}
	ep.fd, ep.name = fd, name
	return nil
}

// removeUnix removes the file of a UNIX domain socket's name (an abstract
// one has none).
func removeUnix(name string) {
	if name != "" && name[0] != '@' {
		os.Remove(name)
	}
}

// maxUnixSources bounds Setup.UnixSources: a name per flow and a process.
const maxUnixSources = spec.MaxFlows + 1

// allowUnix adds to t's allowed sources, in an authenticated session, what
// tells the client's UNIX domain data apart: its datagram sockets' names
// and the process that makes its connections.
func (t *test) allowUnix(sources []string) error {
	if len(sources) == 0 || t.allowed == nil {
		return nil
	}
	if len(sources) > maxUnixSources {
		return fmt.Errorf("unix sources: %d, at most %d", len(sources), maxUnixSources)
	}
	var names []string
	var pids []int32
	for _, src := range sources {
		if pid, ok := strings.CutPrefix(src, "pid:"); ok {
			n, err := strconv.ParseInt(pid, 10, 32)
			if err != nil || n <= 0 {
				return fmt.Errorf("unix sources: %s is not a process id", clip(src))
			}
			pids = append(pids, int32(n))
			continue
		}
		if len(src) < 2 || src[0] != '@' || len(src) > sock.MaxUnixName {
			return fmt.Errorf("unix sources: %s is not an abstract name", clip(src))
		}
		names = append(names, src)
	}
	t.allowed.AllowUnix(names, pids)
	return nil
}

// errUnixStanding refuses a standing endpoint of a test over UNIX domain
// sockets.
var errUnixStanding = errors.New("a test over UNIX domain sockets has no standing endpoint: its server names its socket at set-up, over a control connection")

// unixTick gives a connection accepted on a UNIX domain listener the
// data path's socket timeouts (sock.Tick): unlike a TCP connection it does
// not inherit them from its listener. It returns fd (-1 stays -1).
func (t *test) unixTick(fd int) int {
	if fd >= 0 && t.w.Unix {
		if err := sock.SetTick(fd, sock.Tick); err != nil {
			t.fail(err)
		}
	}
	return fd
}
