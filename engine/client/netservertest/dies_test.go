package netservertest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"netscript/internal/leakcheck"
)

// dieEnv, set in a re-run of this test binary, makes TestDiesWithTest the
// test binary to be killed: it starts a netserver, says so and waits.
const dieEnv = "NETSERVERTEST_DIE"

// TestDiesWithTest kills a test binary that started a netserver, with
// SIGKILL as a signal or a -test.timeout would, so none of its cleanups
// run, and checks that the netserver did not outlive it.
func TestDiesWithTest(t *testing.T) {
	if os.Getenv(dieEnv) != "" {
		fmt.Printf("NETSERVER %d\n", Start(t, "127.0.0.1"))
		time.Sleep(time.Hour) // until killed; -test.timeout ends it otherwise
		return
	}
	_, started := leakcheck.KillRerun(t, "TestDiesWithTest", dieEnv+"=1", "NETSERVER ")
	if len(started) != 1 {
		leakcheck.Outlived(started, 0)
		t.Fatalf("the test binary had started %v, not one netserver", started)
	}
	if left := leakcheck.Outlived(started, 30*time.Second); len(left) > 0 {
		t.Fatalf("netserver %v still ran 30 s after the test binary that started it was killed", left)
	}
}
