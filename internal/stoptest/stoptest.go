// Package stoptest holds what tests that stop a running script share: a
// progress reporter that cancels once a test has counted work, and the
// bound such a stop must meet. It imports nothing of starlib, so starlib's
// own tests can use it.
package stoptest

import (
	"context"
	"sync"
	"time"

	"netscript/engine/client"
)

// OnWork is a progress Reporter that cancels the script at the first
// report of a test that has counted work, so the cancel lands inside a
// measured interval however long a loaded machine takes to set it up.
type OnWork struct {
	Cancel context.CancelFunc
	once   sync.Once
}

// Test cancels once p shows work.
func (c *OnWork) Test(p client.Progress) {
	if p.Transactions > 0 || p.Bytes > 0 {
		c.once.Do(c.Cancel)
	}
}

// Iteration does nothing.
func (c *OnWork) Iteration(string, int, int) {}

// Done does nothing.
func (c *OnWork) Done() {}

// HangGuard bounds how long a script whose 30 s tests were stopped may
// take: far more than a loaded machine needs, far less than the tests.
const HangGuard = 15 * time.Second
