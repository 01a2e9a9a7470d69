package workload

import "time"

// ClientLoop is the client's data path of one flow: it runs the measured
// interval on the thread it is called on and leaves what it counted, its
// histogram and why it ended early (if it did) in its Loop. Every client
// loop embeds Loop, which gives it Base.
type ClientLoop interface {
	// Base returns the state every client loop shares: its limits, stop
	// flag, histogram, pacing, interim samples and counts.
	Base() *Loop
	// Run runs the measured interval.
	Run()
}

// Base returns l itself, so that every loop embedding Loop is a ClientLoop.
func (l *Loop) Base() *Loop { return l }

// ServerLoop is the server's data path of one connection or one endpoint:
// it serves until the client is done or its stop flag is set. Every server
// loop embeds ServerOutcome, which gives it Outcome.
type ServerLoop interface {
	// Run serves; it returns when the loop is done.
	Run()
	// Outcome returns what the loop counted and why it ended early, if it
	// did; it is complete once Run has returned.
	Outcome() *ServerOutcome
}

// ServerOutcome is what a server loop counted, and its error.
type ServerOutcome struct {
	Counts ServerCounts
	Err    error
	// Threads is the CPU time of the threads the loop ran besides the
	// one that called Run (a test both ways sends on one of its own).
	Threads time.Duration
}

// Outcome returns o itself, so that every loop embedding ServerOutcome is a
// ServerLoop.
func (o *ServerOutcome) Outcome() *ServerOutcome { return o }

// The loops of this package, checked by the compiler.
var (
	_ ClientLoop = (*RR)(nil)
	_ ClientLoop = (*CRR)(nil)
	_ ClientLoop = (*UDPRR)(nil)
	_ ClientLoop = (*Stream)(nil)
	_ ClientLoop = (*Maerts)(nil)
	_ ClientLoop = (*UDPStream)(nil)
	_ Parted     = (*Bidir)(nil)

	_ ServerLoop = (*RRServer)(nil)
	_ ServerLoop = (*CRRServer)(nil)
	_ ServerLoop = (*UDPRRServer)(nil)
	_ ServerLoop = (*StreamSink)(nil)
	_ ServerLoop = (*MaertsSource)(nil)
	_ ServerLoop = (*UDPSink)(nil)
	_ ServerLoop = (*BidirServer)(nil)
)
