package client

import (
	"net/netip"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/cpu"
	"netscript/engine/hist"
	"netscript/engine/mux"
	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// worker is the client's data path for one test: the flows' sockets and
// loops, and the threads that run them. With a few flows each flow has a
// locked thread of its own; a multiplexed test (more than
// spec.ThreadedFlows flows of a workload with a Mux) runs its flows on a
// few epoll threads instead. Either way every thread is created, bound and
// parked before the measured interval, and all flows are released to one
// start instant.
type worker struct {
	kind    *spec.Workload
	flows   []*flow
	mux     *mux.Runner // multiplexed flows, or nil
	mflows  []*mux.Flow
	stop    atomic.Bool
	begin   chan struct{}
	start   time.Time // the common start; zero: each thread takes the time it wakes (one flow, no gate)
	began   bool
	done    chan struct{} // closed once every flow has finished
	granted sock.Buffers
	cpu     *int
	fine    bool   // fine timer slack on the flows' threads (pacing, a common start)
	seed    uint64 // the seed of Poisson arrival schedules (each flow draws its own stream of it)
	// sendSize and recvSize are the bulk sizes the client's loops use.
	sendSize, recvSize int

	// Set before done is closed.
	affinity   []int
	threadTime time.Duration

	tcp   bool // the flows read TCP_INFO at the start and end of the interval (tcpinfo.go)
	mptcp bool // the flows read their MPTCP subflows at the start and end of the interval (mptcp.go)

	unixRemote *sock.Addr // the server's UNIX domain socket (unix.go)
}

// flow is one flow of a test: its socket and its loop, or its mux.Flow.
type flow struct {
	index    int
	fd       int                 // the data socket; -1 for a connection per transaction
	loop     workload.ClientLoop // nil for a multiplexed flow
	m        *mux.Flow           // a multiplexed flow, or nil
	local    netip.AddrPort
	peer     netip.AddrPort
	dataPort int
	// localName and peerName are the names of a UNIX domain data
	// socket and of the server's (local and peer have none).
	localName, peerName string
	// part is which part of its flow's loop the flow runs (a test both
	// ways: 0 sends, on the flow's socket; 1 receives, with fd -1).
	part int

	ready      chan error
	done       chan struct{}
	running    bool // its thread was started
	affinity   []int
	threadTime time.Duration
	// final is the data socket's buffers once the loop ended (zero for a
	// connection per transaction), read by the flow's thread.
	final  sock.Buffers
	tcp    sock.TCPSpan      // TCP_INFO at the start of the interval
	mp     *mptcpSpan        // the MPTCP subflows at the start of the interval (mptcp.go)
	mpConn *result.MPTCPConn // and what the end made of them
	// retrBase is tcpi_total_retrans at the start, with bit 32 set once
	// read, for the progress watcher (tcpinfo.go).
	retrBase atomic.Uint64
}

func familyOf(a netip.Addr) int {
	if a.Is4() {
		return unix.AF_INET
	}
	return unix.AF_INET6
}

// base returns the shared part of the flow's loop (nil for a multiplexed
// flow).
func (f *flow) base() *workload.Loop {
	if f.loop == nil {
		return nil
	}
	return f.loop.Base()
}

// counts returns what the flow counted.
func (f *flow) counts() *workload.Counts {
	if f.m != nil {
		return &f.m.Result
	}
	return &f.base().Result
}

// hist returns the flow's latency histogram, or nil.
func (f *flow) hist() *hist.Histogram {
	if f.m != nil {
		return f.m.Hist
	}
	return f.base().Hist
}

// firstErr returns why the first flow that ended early did, naming the
// flow when the test has several, or nil.
func (w *worker) firstErr() error {
	for _, f := range w.flows {
		if err := f.err(); err != nil {
			if len(w.flows) > 1 {
				return &spec.FlowError{Flow: f.index, Flows: len(w.flows), Err: err}
			}
			return err
		}
	}
	return nil
}

// err returns why the flow ended early, or nil.
func (f *flow) err() error {
	if f.m != nil {
		return f.m.Err
	}
	return f.base().Err
}

// threads is how many data-path threads the worker runs.
func (w *worker) threads() int {
	if w.mux != nil {
		return muxThreads(len(w.mflows))
	}
	return len(w.flows)
}

// muxThreads is how many epoll threads run a multiplexed test's flows: one
// per CPU, at most 8.
func muxThreads(flows int) int { return max(1, min(runtime.NumCPU(), 8, flows)) }

// run is a flow's data-path thread: it binds itself, parks until start,
// waits for the common start instant and runs the loop, measuring its own
// CPU time.
func (w *worker) run(f *flow) {
	runtime.LockOSThread() // never unlocked: the thread ends with the test, and its binding with it
	defer close(f.done)
	if w.cpu != nil {
		if err := cpu.Bind(*w.cpu); err != nil {
			f.ready <- err
			return
		}
	}
	f.affinity, _ = cpu.Affinity()
	if w.fine {
		sock.FineTimers() // best effort: sleeps wake on time
	}
	f.ready <- nil
	<-w.begin
	if w.stop.Load() {
		return
	}
	l := f.base()
	if w.start.IsZero() {
		l.Start = time.Now()
	} else {
		workload.WaitUntil(w.start, w.stop.Load)
		l.Start = w.start
	}
	w.beginTCP(f)
	t0, err := cpu.ThreadTime()
	f.loop.Run()
	if t1, err1 := cpu.ThreadTime(); err == nil && err1 == nil {
		f.threadTime = t1.Sub(t0).Total()
	}
	w.endTCP(f)
	if f.fd >= 0 {
		f.final = sock.Granted(f.fd) // one getsockopt pair, after the measured loop
	}
}

// startAt releases every flow into the measured interval, measured from t0
// (zero: a single flow takes the time its thread wakes). A goroutine closes
// w.done once every flow has finished.
func (w *worker) startAt(t0 time.Time) {
	w.start = t0
	w.began = true
	if w.mux != nil {
		if t0.IsZero() {
			w.start = time.Now()
		}
		for _, f := range w.flows {
			w.beginTCP(f)
		}
		w.mux.Start(w.start)
		go func() {
			w.mux.Wait()
			for _, f := range w.flows {
				w.endTCP(f)
			}
			w.threadTime = w.mux.CPUTime()
			w.affinity = w.mux.Affinity()
			close(w.done)
		}()
		return
	}
	close(w.begin)
	go func() {
		for _, f := range w.flows {
			<-f.done
			w.threadTime += f.threadTime
		}
		if len(w.flows) > 0 {
			w.affinity = w.flows[0].affinity
		}
		if w.start.IsZero() && len(w.flows) > 0 {
			w.start = w.flows[0].base().Start
		}
		close(w.done)
	}()
}

// finish ends the data connections after the loops of a workload that
// half-closes (spec.Workload.HalfClose): every flow's connection is
// half-closed and drained until the server closes it, so the server
// answers and counts every request that was sent.
func (w *worker) finish(timeout time.Duration) {
	if !w.kind.HalfClose {
		return
	}
	var fds []int
	for _, f := range w.flows {
		if f.fd >= 0 {
			fds = append(fds, f.fd)
		}
	}
	for _, fd := range fds {
		if w.mux != nil {
			sock.SetNonblock(fd, false) // the socket keeps its Tick timeouts
		}
		unix.Shutdown(fd, unix.SHUT_WR)
	}
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(timeout)
	for _, fd := range fds {
		workload.Drain(fd, buf, max(time.Until(deadline), time.Millisecond))
	}
}

// drainAfterStop reads what the server of a workload that sends
// (spec.Workload.ServerSends) still sends on every flow after the
// interval, until it closes or timeout passes, and counts it as drained.
func (w *worker) drainAfterStop(timeout time.Duration) uint64 {
	if !w.kind.ServerSends {
		return 0
	}
	var total uint64
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(timeout)
	for _, f := range w.flows {
		if f.fd >= 0 {
			n, _ := workload.Drain(f.fd, buf, max(time.Until(deadline), time.Millisecond))
			c := f.counts()
			c.Drained += n
			total += c.Drained
		}
	}
	return total
}

// close frees the sockets and, if the loops never started, their threads.
func (w *worker) close() {
	if !w.began {
		w.stop.Store(true)
		w.began = true
		if w.mux != nil {
			w.mux.Abort()
		} else {
			close(w.begin)
			for _, f := range w.flows {
				if f.running {
					<-f.done
				}
			}
		}
	} else {
		<-w.done
	}
	for _, f := range w.flows {
		if f.fd >= 0 {
			unix.Close(f.fd)
			f.fd = -1
		}
		if c, ok := f.loop.(interface{ Close() }); ok {
			c.Close() // what a loop holds beyond its socket: tcp_sendfile's file
		}
	}
}

// localKey is how the server names the flow's connection in Results: its
// address and port, or its UNIX domain name.
func (f *flow) localKey() string {
	if f.localName != "" {
		return f.localName
	}
	return f.local.String()
}
