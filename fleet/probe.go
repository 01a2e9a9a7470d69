package fleet

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// probeConcurrency bounds the connections Probe has open at once.
const probeConcurrency = 64

// Probe tries each agent's control port with a TCP connection and closes
// it, at most probeConcurrency at once, each within timeout: it returns,
// for each agent in order, nil if something accepted the connection, or
// why not (an agent that is not Ready, or has no address, is not tried).
// It says only that a port is open: a daemon that then refuses the token
// fails its first test. Each probe is a control connection that never
// handshakes, which the daemon logs.
func Probe(ctx context.Context, agents []Agent, timeout time.Duration) []error {
	errs := make([]error, len(agents))
	sem := make(chan struct{}, probeConcurrency)
	var wg sync.WaitGroup
	for i, a := range agents {
		switch {
		case !a.Address.IsValid():
			errs[i] = fmt.Errorf("%s: no address (the pod has none yet)", a.Name)
			continue
		case !a.Ready:
			errs[i] = fmt.Errorf("%s: not Ready", a)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			d := net.Dialer{Timeout: timeout}
			c, err := d.DialContext(ctx, "tcp", a.Control())
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", a, err)
				return
			}
			c.Close()
		}()
	}
	wg.Wait()
	return errs
}
