//go:build linux && !amd64 && !arm64

package sock

import (
	"errors"
	"time"
)

// Ticker is not available on this architecture; callers fall back to
// socket timeouts (SetTick).
type Ticker struct{}

// StartTicker always fails here.
func StartTicker(period time.Duration) (Ticker, error) {
	return Ticker{}, errors.New("ticker: not available on this architecture")
}

// Stop does nothing.
func (t Ticker) Stop() {}
