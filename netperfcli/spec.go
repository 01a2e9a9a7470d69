package netperfcli

import (
	"strconv"

	"netscript/engine/spec"
)

// Spec is the test one iteration of c runs, against the embedded loopback
// server when c names no host.
func (c *Command) Spec() (spec.Spec, error) {
	s := spec.Default(c.Test)
	target(c, &s)
	s.Family = c.Family
	switch {
	case c.Count > 0 && c.Test.RR():
		s.Duration, s.Transactions = 0, uint64(c.Count)
	case c.Count > 0:
		s.Duration, s.Bytes = 0, uint64(c.Count)
	case c.Duration > 0:
		s.Duration = c.Duration
	}
	if c.Request > 0 {
		s.Request = c.Request
	}
	if c.Response > 0 {
		s.Response = c.Response
	}
	s.SendSize, s.RecvSize = c.SendSize, c.RecvSize
	s.SendBuffer, s.RecvBuffer = c.SendBuffer, c.RecvBuffer
	s.RemoteSendBuffer, s.RemoteRecvBuffer = c.RemoteSendBuffer, c.RemoteRecvBuffer
	s.Burst, s.NoDelay, s.FastOpen = c.Burst, c.NoDelay, c.FastOpen
	s.Local = c.Local
	if c.DataLocal != "" {
		s.Local = c.DataLocal
	}
	s.LocalPort, s.DataPort = c.LocalPort, c.DataPort
	s.LocalPortRange = c.PortRange
	s.Brand = c.Brand
	s.CPUUtil = c.LocalCPU || c.RemoteCPU
	s.CPU, s.RemoteCPU = c.CPU, c.RemoteCPUBind
	s.Interval = c.Demo
	if s.Duration > 0 && s.Interval > s.Duration {
		s.Interval = s.Duration // netperf's demo mode then reports the whole test once
	}
	s.Rate = c.Rate
	s.NoControl = c.NoControl
	return s, s.Validate()
}

// target points s at the far end netperf's -H and -p name, and returns
// the script options that say the same: no -H is the embedded loopback
// server (-p alone changes nothing then); -H host is netserver's control
// port, 12865 unless -p says otherwise, in netserver's protocol
// (server="netserver"), so it is a netserver or a `netscript serve
// --netperf-listen`; with -N, a standing endpoint of `netscript serve
// --data`.
func target(c *Command, s *spec.Spec) (kwargs []string) {
	if c.Host == "" {
		return nil
	}
	s.Host, s.Port = c.Host, NetserverPort
	if c.Port != 0 {
		s.Port = c.Port
	}
	if c.NoControl {
		// -N: no control connection, a netscript standing endpoint
		// (serve --data) at the data port.
		return []string{"host = " + strconv.Quote(s.Host), "port = " + strconv.Itoa(s.Port)}
	}
	s.Server = spec.ServerNetserver
	kw := []string{"host = " + strconv.Quote(s.Host), `server = "netserver"`}
	if s.Port != NetserverPort {
		kw = append(kw, "port = "+strconv.Itoa(s.Port))
	}
	return kw
}
