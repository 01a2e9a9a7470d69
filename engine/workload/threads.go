package workload

import (
	"runtime"
	"sync"
)

// Threads keeps GOMAXPROCS above the number of data-path threads of the
// process. A data-path thread blocks in raw system calls while holding its
// scheduler slot (P), so without spare slots the control goroutines, timers
// and signal handling would starve. One Threads value should serve the whole
// process (the client side and an embedded server alike); its zero value is
// ready to use.
type Threads struct {
	mu     sync.Mutex
	active int
}

// spare is how many scheduler slots stay free for everything else.
const spare = 2

// Acquire notes n more data-path threads and raises GOMAXPROCS if needed.
// The returned function gives them back. GOMAXPROCS is never lowered: a
// change stops the world, and set-up is the only time that is acceptable.
func (t *Threads) Acquire(n int) (release func()) {
	t.mu.Lock()
	t.active += n
	want := t.active + spare
	if c := runtime.NumCPU(); want < c+spare {
		want = c + spare
	}
	if runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.active -= n
			t.mu.Unlock()
		})
	}
}
