package mux

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/cpu"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// Conn is one accepted connection served by Serve (TCP_RR), ServeStream or
// ServeMaerts, with its own counts.
type Conn struct {
	FD     int
	Counts workload.ServerCounts
	// Err is why serving the connection failed, as a thread's loop
	// reports it (workload.ServerOutcome); nil if it did not, or if the
	// client only went away.
	Err error

	got     int           // bytes of the current request received
	unsent  int           // bytes of responses not yet sent
	waitOut bool          // epoll watches for room to write
	closed  bool          // the client closed, the connection failed, or its work is done
	due     time.Duration // TCP_MAERTS with a rate: when the next send is due, from the threads' start
}

// ServeRR answers TCP_RR requests on every connection, each request with
// one response, on `threads` threads, until every client has closed its
// connection or stop is set.
func ServeRR(conns []*Conn, request, response, threads int, stop *atomic.Bool) {
	Serve(conns, ServeConfig{Request: request, Response: response, Threads: threads, Stop: stop})
}

// ServeConfig is how Serve, ServeStream and ServeMaerts serve a test's
// connections.
type ServeConfig struct {
	Request, Response int          // TCP_RR: the message sizes
	RecvSize          int          // TCP_STREAM: bytes asked of each receive call
	SendSize          int          // TCP_MAERTS: bytes of each send call
	Bytes             uint64       // TCP_MAERTS: send exactly this many bytes per connection; 0: until Stop
	Rate              float64      // TCP_MAERTS: sends per second per connection; 0: unpaced
	Threads           int          // how many threads share the connections; at least 1
	Stop              *atomic.Bool // set to end serving
	CPU               *int         // bind every thread to this CPU; nil leaves them to the scheduler
	// Ready, if set, is called once every thread is set up and waiting
	// for requests (or has failed).
	Ready func()
	// QuickAck, TCP_RR: re-arm TCP_QUICKACK after each receive
	// (quickack=True), as workload.RRServer does; the connections come
	// with it set once.
	QuickAck bool
}

// ServeStats is what Serve reports about its threads.
type ServeStats struct {
	CPUTime  time.Duration // the threads' CPU time
	Affinity []int         // the CPUs the threads could run on
	Err      error         // a thread could not be set up (binding to cfg.CPU)
}

// Serve answers TCP_RR requests on every connection as ServeRR does. A
// connection whose client half-closes is half-closed back, so the client
// sees at once that every request was answered.
func Serve(conns []*Conn, cfg ServeConfig) ServeStats {
	return serveOn(conns, &cfg, func(part []*Conn, ready func()) {
		serveThread(part, cfg.Request, cfg.Response, cfg.Stop, ready, cfg.QuickAck)
	})
}

// serveOn shares conns among cfg.Threads locked threads, each bound to
// cfg.CPU if asked, and runs loop on each with its share; loop calls ready
// once its connections are registered (or it failed). It returns when
// every thread has ended, with their CPU time and affinity.
func serveOn(conns []*Conn, cfg *ServeConfig, loop func(part []*Conn, ready func())) ServeStats {
	parts := make([][]*Conn, max(1, min(cfg.Threads, len(conns))))
	for i, c := range conns {
		parts[i%len(parts)] = append(parts[i%len(parts)], c)
	}
	var wg, ready sync.WaitGroup
	var mu sync.Mutex
	var st ServeStats
	ready.Add(len(parts))
	if cfg.Ready != nil {
		go func() { ready.Wait(); cfg.Ready() }()
	}
	for _, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the test
			if cfg.CPU != nil {
				if err := cpu.Bind(*cfg.CPU); err != nil {
					mu.Lock()
					st.Err = err
					mu.Unlock()
					for _, c := range part {
						c.closed = true
					}
					ready.Done()
					return
				}
			}
			aff, _ := cpu.Affinity()
			t0, terr := cpu.ThreadTime()
			loop(part, ready.Done)
			t1, err := cpu.ThreadTime()
			mu.Lock()
			if terr == nil && err == nil {
				st.CPUTime += t1.Sub(t0).Total()
			}
			if st.Affinity == nil {
				st.Affinity = aff
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return st
}

// serveThread serves conns until all have closed or stop is set; ready is
// called once they are registered with epoll (or the thread failed).
func serveThread(conns []*Conn, request, response int, stop *atomic.Bool, ready func(), quickAck bool) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		for _, c := range conns {
			c.Counts.Errors.Add(err.(unix.Errno))
			c.closed = true
		}
		ready()
		return
	}
	defer unix.Close(epfd)
	rbuf := make([]byte, min(max(request, 1), 1<<20))
	resp := make([]byte, min(max(response, 1), 1<<20))
	events := make([]unix.EpollEvent, min(len(conns), 512))
	open := 0
	for i, c := range conns {
		if sock.SetNonblock(c.FD, true) != nil {
			c.closed = true
			continue
		}
		if en := sock.EpollCtl(epfd, unix.EPOLL_CTL_ADD, c.FD, unix.EPOLLIN, int32(i)); en != 0 {
			c.Counts.Errors.Add(en)
			c.closed = true
			continue
		}
		open++
	}
	ready()
	for open > 0 && !stop.Load() {
		n, en := sock.EpollWait(epfd, events, tickMs)
		if en != 0 && en != unix.EINTR {
			return
		}
		for _, ev := range events[:n] {
			i := int(ev.Pad)
			c := conns[i]
			if c.closed {
				continue
			}
			if ev.Events&unix.EPOLLOUT != 0 && c.unsent > 0 {
				flushResponses(epfd, c, i, resp)
			}
			if ev.Events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP) != 0 && !c.closed {
				readRequests(epfd, c, i, request, response, rbuf, resp, quickAck)
			}
			if c.closed {
				open--
			}
		}
	}
}

// readRequests reads once from c; every complete request owes a response.
// With quickAck, each receive re-arms TCP_QUICKACK.
func readRequests(epfd int, c *Conn, i, request, response int, rbuf, resp []byte, quickAck bool) {
	n, en := sock.Read(c.FD, rbuf[:min(request-c.got, len(rbuf))])
	if en == unix.EAGAIN || en == unix.EINTR {
		return
	}
	if quickAck && en == 0 {
		sock.QuickAck(c.FD)
	}
	if en != 0 || n == 0 {
		if en != 0 && en != unix.ECONNRESET {
			c.Counts.Errors.Add(en)
		}
		if n == 0 && en == 0 {
			sock.Shutdown(c.FD, unix.SHUT_WR) // every request is answered: say so
		}
		c.closed = true
		return
	}
	c.Counts.BytesReceived += uint64(n)
	c.got += n
	if c.got < request {
		return
	}
	c.got = 0
	c.Counts.Transactions++
	c.unsent += response
	flushResponses(epfd, c, i, resp)
}

// flushResponses sends what c is owed; a full socket waits for EPOLLOUT.
func flushResponses(epfd int, c *Conn, i int, resp []byte) {
	for c.unsent > 0 {
		k := min(c.unsent, len(resp))
		m, en := sock.Write(c.FD, resp[:k])
		if en == unix.EAGAIN {
			if !c.waitOut {
				c.waitOut = true
				sock.EpollCtl(epfd, unix.EPOLL_CTL_MOD, c.FD, unix.EPOLLIN|unix.EPOLLOUT, int32(i))
			}
			return
		}
		if en == unix.EINTR {
			continue
		}
		if en != 0 {
			if en != unix.EPIPE && en != unix.ECONNRESET {
				c.Counts.Errors.Add(en)
			}
			c.closed = true
			return
		}
		c.Counts.BytesSent += uint64(m)
		c.unsent -= m
		if c.unsent == 0 && c.waitOut {
			c.waitOut = false
			sock.EpollCtl(epfd, unix.EPOLL_CTL_MOD, c.FD, unix.EPOLLIN, int32(i))
		}
	}
}
