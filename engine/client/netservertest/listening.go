package netservertest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ListeningPort waits until the process pid holds a listening TCP socket
// and returns the port it is bound to: how a test learns the port a
// program that was told port 0 got from the kernel when the program does
// not print it. It fails when exited is closed first (the program ended)
// or after timeout.
func ListeningPort(pid int, exited <-chan struct{}, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		port, err := listeningPort(pid)
		if err != nil {
			return 0, err
		}
		if port > 0 {
			return port, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("process %d holds no listening TCP socket after %v", pid, timeout)
		}
		select {
		case <-exited:
			return 0, fmt.Errorf("process %d exited before it listened", pid)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// listeningPort is the port of a listening TCP socket that pid holds, 0
// if it holds none (yet).
func listeningPort(pid int) (int, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil // exited: the caller's channel says so
		}
		return 0, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	if len(inodes) == 0 {
		return 0, nil
	}
	for _, table := range []string{"tcp", "tcp6"} {
		port, err := listenerIn(fmt.Sprintf("/proc/%d/net/%s", pid, table), inodes)
		if port > 0 || err != nil {
			return port, err
		}
	}
	return 0, nil
}

// listenerIn looks in a /proc/net/tcp table for a socket in state LISTEN
// whose inode is one of inodes and returns its local port.
func listenerIn(path string, inodes map[string]bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] {
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		port, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			return 0, fmt.Errorf("%s: local address %q: %w", path, fields[1], err)
		}
		return int(port), nil
	}
	return 0, sc.Err()
}
