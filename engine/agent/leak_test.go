package agent_test

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"netscript/engine/workload"
)

// held is what an attack test compares before and after: the process's
// sockets and goroutines. Sockets, not every descriptor: the runtime keeps
// pipes (splice's, for the relay's io.Copy between two connections) and
// /dev/null open once it has used them.
type held struct{ sockets, goroutines int }

// holding reads the process's sockets and goroutines.
func holding(t *testing.T) held {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	h := held{goroutines: runtime.NumGoroutine()}
	for _, e := range es {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			h.sockets++
		}
	}
	return h
}

// backTo waits, for at most 15 s, until the thread budget th holds nothing
// and the process's sockets and goroutines are back to before: the attack
// left nothing behind.
func backTo(t *testing.T, th *workload.Threads, before held) {
	t.Helper()
	var now held
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		now = holding(t)
		if th.InUse() == 0 && now.sockets <= before.sockets && now.goroutines <= before.goroutines {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Errorf("after the attack: %d threads of the budget in use, %+v held (before %+v)", th.InUse(), now, before)
}
