package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"netscript/engine/proto"
)

// The -hostile benchmark (`make bench-hostile`): what a daemon pays for
// control connections that never become tests, and whether a test through
// it keeps its figures meanwhile.
var (
	hostile      = flag.Bool("hostile", false, "instead of the comparison: the daemon's memory, descriptors and tcp_rr throughput with idle and hostile control connections open")
	hostileConns = flag.Int("conns", 200, "with -hostile: control connections held open")
)

// An attack is how each held connection behaves.
type attack struct {
	name  string
	hello func(c net.Conn) // what it sends once connected, then nothing more
}

var attacks = []attack{
	// Connects and says nothing (a slow loris).
	{"silent", func(net.Conn) {}},
	// Sends the preamble and a frame header that announces the largest
	// payload the daemon accepts, and a few bytes of it: the daemon holds
	// the payload's buffer while it waits for the rest.
	{"hostile", func(c net.Conn) {
		b := proto.AppendPreamble(nil, proto.Version)
		b = binary.BigEndian.AppendUint32(b, proto.DefaultMaxFrame+1)
		b = append(b, byte(proto.TypeSetup), '{', '"')
		c.Write(b)
	}},
}

// holder keeps n connections of one attack open against addr: one the
// daemon closes (its handshake deadline) is dialled again, as an attacker
// would. They come from many loopback networks (127.1.x.1), as from many
// hosts: one network (a /24) alone holds at most --max-pending-per-client.
type holder struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs int
}

func hold(addr string, n int, a attack) *holder {
	h := &holder{stop: make(chan struct{})}
	ready := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		src := &net.TCPAddr{IP: net.IPv4(127, 1, byte(i%250), 1)}
		d := net.Dialer{LocalAddr: src, Timeout: time.Second}
		h.wg.Go(func() {
			first := true
			for {
				c, err := d.Dial("tcp", addr)
				if err != nil {
					h.mu.Lock()
					h.errs++
					h.mu.Unlock()
					select {
					case <-h.stop:
						return
					case <-time.After(100 * time.Millisecond):
						continue
					}
				}
				a.hello(c)
				if first {
					ready <- struct{}{}
					first = false
				}
				closed := make(chan struct{})
				go func() { // notices the daemon closing it
					buf := make([]byte, 512)
					for {
						if _, err := c.Read(buf); err != nil {
							close(closed)
							return
						}
					}
				}()
				select {
				case <-h.stop:
					c.Close()
					<-closed
					return
				case <-closed:
					c.Close()
				}
			}
		})
	}
	for i := 0; i < n; i++ {
		<-ready
	}
	time.Sleep(200 * time.Millisecond) // the daemon has accepted them all
	return h
}

func (h *holder) release() {
	close(h.stop)
	h.wg.Wait()
}

// procFigures reads a process's resident memory (KiB), open descriptors
// and threads.
func procFigures(pid int) (rssKiB, fds, threads int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSuffix(strings.TrimSpace(v), " kB")
			switch k {
			case "VmRSS":
				rssKiB, _ = strconv.Atoi(v)
			case "Threads":
				threads, _ = strconv.Atoi(v)
			}
		}
	}
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err == nil {
		fds = len(es)
	}
	return rssKiB, fds, threads
}

// runHostile measures a separate daemon (on CPU 0): its memory and
// descriptors idle and with the connections of each attack held open, and
// the throughput of a tcp_rr (client on CPU 1) through it with each attack
// under way, as a ratio of the same test with the daemon otherwise idle,
// the two alternating round by round.
func runHostile(netscript string, rounds int, secs float64) {
	port := freePort()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// taskset execs the daemon in its own process, so its pid is the
	// daemon's.
	cmd := exec.Command("taskset", "-c", "0", netscript, "serve", "--quiet", "--listen", addr)
	// Its log (each refused connection, at most 20 lines a second) is
	// left out.
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "nsbench: start %s: %v\n", netscript, err)
		exit(1)
	}
	var once sync.Once
	stop := func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	running = append(running, stop) // exit stops it too
	defer stop()
	time.Sleep(300 * time.Millisecond)
	pid := cmd.Process.Pid

	fmt.Printf("netscript serve under %d control connections that never become tests (daemon on CPU 0, client on CPU 1)\n", *hostileConns)
	fmt.Printf("%-22s %12s %8s\n", "daemon", "RSS", "fds")
	rss, idleFDs, _ := procFigures(pid)
	fmt.Printf("%-22s %9.1f MiB %8d\n", "idle", float64(rss)/1024, idleFDs)
	for _, a := range attacks {
		h := hold(addr, *hostileConns, a)
		// Until the daemon has accepted them all (a loaded machine lags).
		var rss, fds int
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if rss, fds, _ = procFigures(pid); fds >= idleFDs+*hostileConns || time.Now().After(deadline) {
				break
			}
		}
		h.release()
		fmt.Printf("%-22s %9.1f MiB %8d\n", fmt.Sprintf("%d %s", *hostileConns, a.name), float64(rss)/1024, fds)
	}

	code := fmt.Sprintf("print(tcp_rr(host='127.0.0.1', port=%d, duration=%g).throughput)", port, secs)
	rr := func() float64 { return measure("1", netscript, "-c", code) }
	fmt.Printf("\ntcp_rr %g s through the daemon, Trans/s, median of %d alternating rounds\n", secs, rounds)
	fmt.Printf("%-10s %14s %14s %8s\n", "attack", "idle daemon", "under attack", "ratio")
	for _, a := range attacks {
		idle, loaded, ratios := alternate(rounds, rr, func() float64 {
			h := hold(addr, *hostileConns, a)
			defer h.release()
			return rr()
		})
		fmt.Printf("%-10s %14.2f %14.2f %8.3f   rounds: %s (target >= 0.9)\n", a.name, median(idle), median(loaded), median(ratios), fmtList(ratios))
	}
	benchExhaustion(addr, pid, rounds, rr)
}

// alternate runs idle and under rounds times each, alternating which goes
// first, and returns both series and their ratios under/idle round by
// round.
func alternate(rounds int, idle, under func() float64) (xs, ys, ratios []float64) {
	for r := 0; r < rounds; r++ {
		var x, y float64
		if r%2 == 0 {
			x, y = idle(), under()
		} else {
			y, x = under(), idle()
		}
		xs, ys, ratios = append(xs, x), append(ys, y), append(ratios, y/x)
	}
	return xs, ys, ratios
}
