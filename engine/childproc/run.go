package childproc

import (
	"bytes"
	"errors"
	"os/exec"
)

// Run starts cmd with [Start] and waits for it, as cmd.Run does.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// Output runs cmd with [Run] and returns its standard output, as
// cmd.Output does: when cmd.Stderr is unset and cmd fails, the
// *exec.ExitError holds what cmd wrote to its standard error.
func Output(cmd *exec.Cmd) ([]byte, error) {
	if cmd.Stdout != nil {
		return nil, errors.New("childproc: Stdout already set")
	}
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	captured := cmd.Stderr == nil
	if captured {
		cmd.Stderr = &stderr
	}
	err := Run(cmd)
	var ee *exec.ExitError
	if captured && errors.As(err, &ee) {
		ee.Stderr = stderr.Bytes()
	}
	return out.Bytes(), err
}

// CombinedOutput runs cmd with [Run] and returns its standard output and
// standard error together, as cmd.CombinedOutput does.
func CombinedOutput(cmd *exec.Cmd) ([]byte, error) {
	if cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("childproc: Stdout or Stderr already set")
	}
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := Run(cmd)
	return b.Bytes(), err
}
