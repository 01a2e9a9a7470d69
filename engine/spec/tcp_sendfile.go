package spec

import (
	"errors"
	"fmt"
	"os"

	"netscript/engine/npwire"
)

// TCPSendfile is netperf's TCP_SENDFILE: TCP_STREAM whose sends are
// sendfile(2) calls of SendSize bytes from a file, round it again and
// again, so the data goes from the page cache to the socket without
// passing through the client. The server reads as TCP_STREAM's does, and
// the result is counted as tcp_stream's.
var TCPSendfile = &Workload{
	Name: "tcp_sendfile", Netperf: "TCP_SENDFILE", Code: 9,
	Unit:       "bulk data, client to server, sent with sendfile(2) from a file",
	Short:      "bulk data client to server by sendfile(2)",
	Bulk:       true,
	Takes:      []string{OptNoDelay, OptSendSize, OptRecvSize, OptBytes, OptFile, OptProtocol},
	MuxServer:  true,
	TakesKnobs: []string{OptCongestion, OptNotsentLowat, OptMSS, OptCork},
	// netperf 2.7.1 sends DO_TCP_STREAM for its TCP_SENDFILE (a netperf
	// client at --netperf-listen); netscript asks a netserver for an omni
	// TCP_STREAM, as netperf's TCP_STREAM does.
	NetperfClassic: npwire.TypeDoTCPStream,
}

// SendfileBlocks is how many sends the temporary file of tcp_sendfile
// holds when no file is given: send_size × 128 bytes, as netperf's ring of
// send buffers is some sends long, so the page cache holds it.
const SendfileBlocks = 128

// validateFile checks that the file tcp_sendfile sends can be read and
// holds something. The check is the client's: a test whose client side
// runs on a daemon (client=) leaves it to that daemon, whose file it is.
func (s *Spec) validateFile() error {
	if s.File == "" || s.Client != "" {
		return nil
	}
	f, err := os.Open(s.File)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("cannot read %s: %w", s.File, pe.Err)
		}
		return &OptionError{Option: OptFile, Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return bad(OptFile, "cannot read %s: %v", s.File, err)
	case !st.Mode().IsRegular():
		return bad(OptFile, "%s is not a regular file: sendfile(2) sends from a file's pages", s.File)
	case st.Size() == 0:
		return bad(OptFile, "%s is empty: there is nothing to send", s.File)
	}
	// A read proves the permission the open did not (a file opened by
	// root, say, whose data a FUSE or NFS server refuses).
	if _, err := f.Read(make([]byte, 1)); err != nil {
		return bad(OptFile, "cannot read %s: %v", s.File, err)
	}
	return nil
}
