package docs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"netscript/internal/leakcheck"
)

// isolationEnv, set in a re-run of this test binary, makes
// TestIsolationDiesWithTest the test binary to be killed: it starts a
// session as TestExamples does, one that leaves two processes running in
// the background as a daemon example would, says so and waits.
const isolationEnv = "DOCS_ISOLATION_DIE"

// TestIsolationDiesWithTest kills (SIGKILL: no cleanup runs) a test binary
// whose examples' session, started as TestExamples starts one, has left
// processes running in the background, and checks that the session and
// all it started went with it.
func TestIsolationDiesWithTest(t *testing.T) {
	prefix, why := isolation()
	if prefix == nil {
		t.Skip(why)
	}
	if os.Getenv(isolationEnv) != "" {
		r, w := io.Pipe()
		if _, err := startSession(context.Background(), prefix, t.TempDir(), "sleep 300 & sleep 300 & echo up; wait", w); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(r).ReadString('\n')
		fmt.Printf("SESSION %s", line)
		time.Sleep(time.Hour) // until killed; -test.timeout ends it otherwise
		return
	}
	said, started := leakcheck.KillRerun(t, "TestIsolationDiesWithTest", isolationEnv+"=1", "SESSION ")
	// unshare (when it forks), the bash session and its two sleeps.
	if said != "up" || len(started) < 3 {
		leakcheck.Outlived(started, 0)
		t.Fatalf("the session did not start as planned: said %q, started %v", said, started)
	}
	if left := leakcheck.Outlived(started, 30*time.Second); len(left) > 0 {
		t.Fatalf("processes %v of the session still ran 30 s after the test binary was killed", left)
	}
}
