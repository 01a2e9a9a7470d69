package workload

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// Threads accounts for the data-path threads of a process and keeps
// GOMAXPROCS in step with them. A data-path thread blocks in raw system
// calls while holding its scheduler slot (P), so without spare slots the
// control goroutines, timers and signal handling would starve; and every
// slot beyond what is in use costs the runtime threads and memory of its
// own (a daemon once raised GOMAXPROCS to 5,378 and died of it).
//
// A daemon gives it a budget (Max): TryAcquire refuses what does not fit,
// so the threads and the memory they pin are bounded whatever clients ask
// for. The client side of a script uses Acquire, which always succeeds:
// the user asked for what it runs. One Threads value should serve the
// whole process; its zero value is ready to use and has no budget.
type Threads struct {
	// Max, if positive, is the most data-path threads TryAcquire lets be
	// in use at once.
	Max int

	mu       sync.Mutex
	active   int
	resident int // of active, the threads held for the process's life (Resident)
	procs    int // GOMAXPROCS as this value last set it; 0: never set
	base     int // the process's OS threads before this value first raised GOMAXPROCS
	reaping  bool
}

// spare is how many scheduler slots stay free for everything else.
const spare = 2

// BudgetError is a TryAcquire refused because the threads would not fit
// in the budget.
type BudgetError struct {
	Need  int // threads asked for
	InUse int // threads in use at the time
	Max   int // the budget
}

func (e *BudgetError) Error() string {
	if e.Need > e.Max {
		return fmt.Sprintf("needs %d data-path threads, more than the budget of %d", e.Need, e.Max)
	}
	return fmt.Sprintf("needs %d data-path threads and %d of the budget of %d are in use", e.Need, e.InUse, e.Max)
}

// Acquire notes n more data-path threads, whatever the budget, and raises
// GOMAXPROCS if needed. The returned function gives them back.
func (t *Threads) Acquire(n int) (release func()) {
	t.mu.Lock()
	t.active += n
	t.adjust()
	t.mu.Unlock()
	return t.releaser(n)
}

// Resident is Acquire for threads held for the process's life (a
// standing endpoint's): they count against the budget, but a daemon whose
// only threads are these is idle, and gives back what its tests pinned
// (reap).
func (t *Threads) Resident(n int) (release func()) {
	t.mu.Lock()
	t.resident += n
	t.mu.Unlock()
	rel := t.Acquire(n)
	return func() {
		rel()
		t.mu.Lock()
		t.resident -= n
		t.mu.Unlock()
	}
}

// TryAcquire notes n more data-path threads if they fit in the budget
// (always, without one); otherwise it returns a *BudgetError and takes
// nothing.
func (t *Threads) TryAcquire(n int) (release func(), err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Max > 0 && t.active+n > t.Max {
		return nil, &BudgetError{Need: n, InUse: t.active, Max: t.Max}
	}
	t.active += n
	t.adjust()
	return t.releaser(n), nil
}

// SetMax sets the budget (see Max); it may be called while threads are in
// use.
func (t *Threads) SetMax(n int) {
	t.mu.Lock()
	t.Max = n
	t.mu.Unlock()
}

// InUse returns how many data-path threads are accounted for now.
func (t *Threads) InUse() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.active
}

func (t *Threads) releaser(n int) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.active -= n
			t.adjust()
			t.mu.Unlock()
		})
	}
}

// adjust sets GOMAXPROCS for the threads in use (called with t.mu held):
// raised at once to cover them, lowered once it is at least twice what
// they need, or when none is left. A change stops the world, which pauses
// every running test for as long as its threads take to reach a safe
// point (at most sock.Tick), so it is not done for every small change.
func (t *Threads) adjust() {
	want := max(t.active, runtime.NumCPU()) + spare
	cur := runtime.GOMAXPROCS(0)
	switch {
	case cur < want:
		if t.procs == 0 && t.base == 0 {
			t.base = osThreads()
		}
		runtime.GOMAXPROCS(want)
		t.procs = want
	case t.procs == 0:
		// Never raised by this value: the runtime's own setting stays.
	case t.active <= t.resident && cur != t.procs:
		// Someone else set it since: leave it to them.
	case t.active <= t.resident:
		runtime.SetDefaultGOMAXPROCS()
		t.procs = 0
		if !t.reaping && t.base > 0 && t.Max > 0 {
			t.reaping = true
			go t.reap()
		}
	case cur >= 2*want:
		runtime.GOMAXPROCS(want)
		t.procs = want
	}
}

// reap, in a daemon (a value with a budget) that has gone idle (no
// thread but its resident ones), gives back what its tests pinned: the
// idle OS threads the runtime kept from when more scheduler slots were in
// use (it never ends an idle thread itself), down to the count before, and
// then the memory the heap no longer uses, their stacks among it. A
// goroutine that exits locked to its thread ends that thread, and the slot
// it held passes to an idle one. It stops ending threads once that no
// longer lowers the count (the runtime made a new thread instead) or a
// test starts again.
func (t *Threads) reap() {
	defer func() {
		t.mu.Lock()
		t.reaping = false
		t.mu.Unlock()
	}()
	defer t.settle()
	for {
		t.mu.Lock()
		idle, base := t.active <= t.resident, t.base+t.resident
		t.mu.Unlock()
		n := osThreads()
		if !idle || n <= base || n < 0 {
			return
		}
		for range min(n-base, 8) {
			done := make(chan struct{})
			go func() {
				runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
				close(done)
			}()
			<-done
		}
		time.Sleep(time.Millisecond) // the ended threads leave /proc
		if osThreads() >= n {
			return
		}
	}
}

// settleRounds and settleWait pace the memory given back after reap: a
// test's buffers are still held for a while after its threads are
// returned (its session is closed, and its control connection's goroutines
// end, after its loops do), and an idle daemon allocates nothing, so no
// garbage collection would otherwise run for up to two minutes. The waits
// double from settleWait: 1, 2, 4, 8 and 16 s.
const (
	settleRounds = 5
	settleWait   = time.Second
)

// settle gives back the ended threads' stacks, then, while the daemon
// stays idle, the heap freed since, settleRounds times. The later rounds
// run on timers, so no goroutine waits between them.
func (t *Threads) settle() {
	freeStacks()
	t.settleAfter(settleWait, settleRounds)
}

// settleAfter gives back the freed heap after wait if the daemon is still
// idle then, and schedules the next of rounds rounds at twice the wait.
func (t *Threads) settleAfter(wait time.Duration, rounds int) {
	if rounds == 0 {
		return
	}
	time.AfterFunc(wait, func() {
		t.mu.Lock()
		idle := t.active <= t.resident
		t.mu.Unlock()
		if !idle {
			return
		}
		debug.FreeOSMemory()
		t.settleAfter(2*wait, rounds-1)
	})
}

// freeStacks returns to the kernel the memory the heap no longer uses,
// with the stacks of the threads that ended. The runtime frees an ended
// thread's own stack only when it next makes a thread, so first it has
// one made: as many goroutines locked to their threads at once as the
// process has threads, which needs at least one new one; they end, and
// their threads with them.
func freeStacks() {
	n := max(osThreads(), 1)
	var wg sync.WaitGroup
	hold := make(chan struct{})
	wg.Add(n)
	for range n {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			wg.Done()
			<-hold
		}()
	}
	wg.Wait()
	close(hold)
	time.Sleep(time.Millisecond) // the ended threads leave
	debug.FreeOSMemory()
}

// osThreads counts the process's OS threads (-1 if /proc cannot tell).
func osThreads() int {
	es, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	return len(es)
}
