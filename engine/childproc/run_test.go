package childproc

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestRunForms: Run, Output and CombinedOutput behave as exec.Cmd's
// methods of those names: the exit status comes back as an
// *exec.ExitError, Output keeps standard error apart (in the ExitError),
// CombinedOutput interleaves the two, and a set Stdout is refused.
func TestRunForms(t *testing.T) {
	const script = "echo out; echo err >&2; exit 3"
	sh := func() *exec.Cmd { return exec.Command("sh", "-c", script) }
	status := func(t *testing.T, err error) *exec.ExitError {
		t.Helper()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("err %v, want exit status 3", err)
		}
		return ee
	}
	t.Run("Run", func(t *testing.T) {
		status(t, Run(sh()))
		if err := Run(exec.Command("true")); err != nil {
			t.Errorf("true: %v", err)
		}
		if err := Run(exec.Command("/nonexistent/netscript-no-such-program")); err == nil {
			t.Error("a missing program ran")
		}
	})
	t.Run("Output", func(t *testing.T) {
		out, err := Output(sh())
		if ee := status(t, err); string(out) != "out\n" || string(ee.Stderr) != "err\n" {
			t.Errorf("stdout %q, stderr %q", out, ee.Stderr)
		}
		c := sh()
		c.Stdout = &strings.Builder{}
		if _, err := Output(c); err == nil || c.Process != nil {
			t.Errorf("Output with Stdout set: %v, started %v", err, c.Process != nil)
		}
	})
	t.Run("CombinedOutput", func(t *testing.T) {
		out, err := CombinedOutput(sh())
		status(t, err)
		if string(out) != "out\nerr\n" {
			t.Errorf("output %q", out)
		}
		c := sh()
		c.Stderr = &strings.Builder{}
		if _, err := CombinedOutput(c); err == nil || c.Process != nil {
			t.Errorf("CombinedOutput with Stderr set: %v, started %v", err, c.Process != nil)
		}
	})
}
