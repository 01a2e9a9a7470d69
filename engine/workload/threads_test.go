package workload

import (
	"errors"
	"runtime"
	"testing"
)

// TestThreadsBudget: TryAcquire refuses what does not fit and takes
// nothing then; releases give the room back (once each); Acquire ignores
// the budget.
func TestThreadsBudget(t *testing.T) {
	th := &Threads{Max: 10}
	r1, err := th.TryAcquire(6)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		n      int
		wantOK bool
		inUse  int // after the step
	}{
		{4, true, 10},
		{1, false, 10},
		{11, false, 10},
	}
	var rels []func()
	for _, s := range steps {
		rel, err := th.TryAcquire(s.n)
		var be *BudgetError
		switch {
		case s.wantOK && err != nil:
			t.Fatalf("TryAcquire(%d): %v", s.n, err)
		case !s.wantOK && !errors.As(err, &be):
			t.Fatalf("TryAcquire(%d) = %v, want a *BudgetError", s.n, err)
		case !s.wantOK && (be.Need != s.n || be.Max != 10):
			t.Fatalf("BudgetError %+v", be)
		}
		if rel != nil {
			rels = append(rels, rel)
		}
		if got := th.InUse(); got != s.inUse {
			t.Fatalf("after TryAcquire(%d): in use %d, want %d", s.n, got, s.inUse)
		}
	}
	r1()
	r1() // a second call gives nothing back twice
	if got := th.InUse(); got != 4 {
		t.Fatalf("in use %d after release, want 4", got)
	}
	rel := th.Acquire(100) // the script's own side: no budget
	if got := th.InUse(); got != 104 {
		t.Fatalf("in use %d, want 104", got)
	}
	rel()
	for _, r := range rels {
		r()
	}
	if got := th.InUse(); got != 0 {
		t.Fatalf("in use %d at the end, want 0", got)
	}
}

// TestGOMAXPROCSFollows: raised for the threads in use, and back to the
// runtime's default once they are all released (the daemon that died had
// raised it to 5,378 and never lowered it).
func TestGOMAXPROCSFollows(t *testing.T) {
	def := runtime.GOMAXPROCS(0)
	th := &Threads{}
	big := th.Acquire(200)
	if got := runtime.GOMAXPROCS(0); got < 200+spare {
		t.Fatalf("GOMAXPROCS %d with 200 threads in use", got)
	}
	small := th.Acquire(3)
	big()
	if got, want := runtime.GOMAXPROCS(0), max(3, runtime.NumCPU())+spare; got != want {
		t.Fatalf("GOMAXPROCS %d with 3 threads in use, want %d", got, want)
	}
	small()
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Fatalf("GOMAXPROCS %d with nothing in use, want the default %d", got, def)
	}
}
