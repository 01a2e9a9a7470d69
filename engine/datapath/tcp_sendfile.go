package datapath

import (
	"netscript/engine/mux"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// tcpSendfile runs TCP_SENDFILE: TCP_STREAM's loop sending with
// sendfile(2) from the test's file (a temporary one when none is given),
// and TCP_STREAM's server.
var tcpSendfile = &Loops{
	Client: func(f *ClientFlow) (workload.ClientLoop, error) {
		src, err := fileOf(f)
		if err != nil {
			return nil, err
		}
		l := &workload.Stream{Loop: f.Loop, FD: f.FD, SendSize: f.SendSize, Bytes: f.Spec.Bytes, Drain: spec.StreamDrain, File: src}
		l.Prepare()
		return l, nil
	},
	Server:    tcpStream.Server,
	MuxServer: mux.ServeStream,
}

// fileOf opens what a flow of tcp_sendfile sends: the file option's file,
// or a temporary file of spec.SendfileBlocks sends, gone from the file
// system before the test starts.
func fileOf(f *ClientFlow) (*workload.FileSource, error) {
	if name := f.Spec.File; name != "" {
		src, err := workload.OpenFileSource(name)
		if err != nil {
			return nil, &spec.OptionError{Option: spec.OptFile, Err: err}
		}
		return src, nil
	}
	src, err := workload.TempFileSource("", int64(f.SendSize)*spec.SendfileBlocks)
	if err != nil {
		return nil, &sock.OpError{Op: "sendfile", Err: err}
	}
	return src, nil
}
