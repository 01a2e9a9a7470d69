package workloads

import "strings"

// nameOnce returns err with the builtin's name said once where the engine
// and the builtin both put it ("tcp_crr: tcp_crr: connect ..." reads
// "tcp_crr: connect ..."); it unwraps to err.
func nameOnce(name string, err error) error {
	twice := name + ": " + name + ": "
	if msg := err.Error(); strings.Contains(msg, twice) {
		return &advised{err: err, text: strings.Replace(msg, twice, name+": ", 1)}
	}
	return err
}
