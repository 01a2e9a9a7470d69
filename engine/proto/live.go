package proto

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Heartbeat says "still here" during the measured interval of a test
// whose Setup asked for heartbeats. Both sides send one every
// Setup.HeartbeatNs from Started until Stop (the client) or until Stop
// arrives (the server); a side that hears nothing for its liveness bound
// ends the test. It carries nothing: its arrival is the message.
type Heartbeat struct{}

// MinHeartbeat and MaxHeartbeat bound the period a Setup may ask for: a
// shorter one would flood the control connection, a longer one would make
// the liveness bound longer than a test is worth waiting for.
const (
	MinHeartbeat = 10 * time.Millisecond
	MaxHeartbeat = time.Minute
)

// CheckHeartbeat refuses a Setup's heartbeat period outside [MinHeartbeat,
// MaxHeartbeat]; 0 (no heartbeats) is allowed.
func CheckHeartbeat(ns int64) error {
	if ns != 0 && (ns < int64(MinHeartbeat) || ns > int64(MaxHeartbeat)) {
		return fmt.Errorf("heartbeat period %v out of range %v-%v", time.Duration(ns), MinHeartbeat, MaxHeartbeat)
	}
	return nil
}

// Check refuses a heartbeat period out of range.
func (m *Setup) Check() error { return CheckHeartbeat(m.HeartbeatNs) }

var _ checker = (*Setup)(nil)

// refusedField is how a strict decoder of the release before a field
// names it in the Error it answers with: the text of Decode's FrameError
// for a Setup carrying that field.
func refusedField(typ Type, field string) string {
	return (&FrameError{fmt.Sprintf("%s payload: unknown field %q", typ, field)}).Error()
}

// HeartbeatRefused reports whether err is a server's refusal of a Setup
// because it does not know Setup.HeartbeatNs: a server of a release
// before heartbeats, which the client then asks again without them.
func HeartbeatRefused(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && re.Message == refusedField(TypeSetup, "heartbeat_ns")
}

// SendHeartbeats sends a Heartbeat on c every period, from another
// goroutine, until the returned function is called (it waits for the last
// send; calling it again does nothing) or a send fails (the reader of c
// learns why). The caller sends nothing else on c meanwhile.
func SendHeartbeats(c *Conn, period time.Duration) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			if c.Send(TypeHeartbeat, Heartbeat{}, period) != nil {
				return
			}
		}
	})
	return sync.OnceFunc(func() { close(quit); wg.Wait() })
}
