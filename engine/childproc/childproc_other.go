//go:build !linux

package childproc

import "os/exec"

// Start starts cmd as cmd.Start does. Only Linux can have a child killed
// when its parent ends, so elsewhere the caller's cleanup is all there is.
func Start(cmd *exec.Cmd) error { return cmd.Start() }
