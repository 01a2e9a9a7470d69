package netns

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
)

// maxOutput is how much of a started process's output a Proc keeps at
// least; once it holds twice as much, all but the last maxOutput bytes are
// dropped.
const maxOutput = 1 << 20

// Proc is a process started inside a namespace by [NS.Start]. Its methods
// may be called from any goroutine.
type Proc struct {
	// Cmd is the running command. Read it; do not call Wait on it (the
	// Proc's own goroutine does), and use [Proc.Stop] rather than killing
	// it by hand.
	Cmd *exec.Cmd

	ns       string
	out      tailBuffer
	cancel   context.CancelFunc
	stopping atomic.Bool   // Stop was called: take the process group down with the leader
	done     chan struct{} // closed when Wait has returned
	err      error         // Wait's result, set before done is closed
	stopOnce sync.Once
	stopErr  error
}

// Pid returns the process's id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Output returns what the process has written so far to its standard
// output and standard error, interleaved as written. Past 2 MiB the oldest
// output is dropped, keeping at least the last MiB after a note saying so.
func (p *Proc) Output() string { return p.out.String() }

// Done returns a channel that is closed once the process has exited and
// been waited for.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err returns the process's exit status as exec.Cmd.Wait reports it, once
// Done is closed ("signal: killed" after Stop); before that it returns nil.
func (p *Proc) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// String describes the process for messages: "sleep 60 (pid 123) in
// ns-4242-server".
func (p *Proc) String() string {
	args := p.Cmd.Args
	if len(args) > 4 && args[1] == "netns" && args[2] == "exec" {
		args = args[4:] // drop "ip netns exec <ns>"
	}
	pid := 0
	if p.Cmd.Process != nil {
		pid = p.Cmd.Process.Pid
	}
	return fmt.Sprintf("%q (pid %d) in %s", args, pid, p.ns)
}

// tailBuffer is an io.Writer safe for concurrent use that keeps the last
// maxOutput bytes written to it and counts the rest.
type tailBuffer struct {
	mu      sync.Mutex
	b       []byte
	dropped int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*maxOutput {
		n := len(t.b) - maxOutput
		t.dropped += int64(n)
		t.b = append([]byte(nil), t.b[n:]...)
	}
	return len(p), nil
}

// String returns the bytes kept, after a note of how many were dropped.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped > 0 {
		return fmt.Sprintf("[... %d bytes dropped ...]\n%s", t.dropped, t.b)
	}
	return string(t.b)
}
