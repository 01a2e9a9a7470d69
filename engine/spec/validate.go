package spec

import (
	"errors"
	"math"
	"time"

	"netscript/engine/cpu"
)

// MaxMessage bounds request, response, send and receive sizes (64 MiB).
const MaxMessage = 64 << 20

// MaxBurst bounds the requests kept in flight.
const MaxBurst = 1 << 16

// MaxBuffer bounds the socket buffer sizes a test may ask for (1 GiB).
const MaxBuffer = 1 << 30

// MaxRate bounds the rate option (transactions or sends per second).
const MaxRate = 1e9

// MinInterval is the shortest period of interim samples.
const MinInterval = time.Millisecond

// MaxSamples bounds the interim samples one test keeps.
const MaxSamples = 100000

// Validate checks every option and names the first one at fault.
func (s *Spec) Validate() error {
	if s.Workload == nil {
		return bad("test", "no workload")
	}
	if err := s.validateOptions(); err != nil {
		return err
	}
	if err := s.validateServer(); err != nil {
		return err
	}
	for _, check := range []func() error{s.validateUnix, s.validateBidir, s.validateProtocol, s.validateFile} {
		if err := check(); err != nil {
			return err
		}
	}
	if err := s.validateEnd(); err != nil {
		return err
	}
	if s.Port < 1 || s.Port > 65535 {
		return bad("port", "must be between 1 and 65535, got %d", s.Port)
	}
	if s.DataPort < 0 || s.DataPort > 65535 {
		return bad("data_port", "must be between 0 and 65535, got %d", s.DataPort)
	}
	if s.LocalPort < 0 || s.LocalPort > 65535 {
		return bad("local_port", "must be between 0 and 65535, got %d", s.LocalPort)
	}
	if err := s.validateSizes(); err != nil {
		return err
	}
	if s.Burst < 0 || s.Burst > MaxBurst {
		return bad("burst", "must be between 0 and %d, got %d", MaxBurst, s.Burst)
	}
	if s.Workload.Accepts(OptTimeout) && s.Timeout <= 0 {
		return bad("timeout", "must be positive, got %v", s.Timeout)
	}
	if s.ConnectTimeout <= 0 {
		return bad("connect_timeout", "must be positive, got %v", s.ConnectTimeout)
	}
	if len(s.Brand) > 1024 {
		return bad("brand", "longer than 1024 bytes")
	}
	if err := s.validateBuffers(); err != nil {
		return err
	}
	if err := s.validateCPU(); err != nil {
		return err
	}
	if math.IsNaN(s.Rate) || math.IsInf(s.Rate, 0) || s.Rate < 0 || s.Rate > MaxRate {
		return bad("rate", "must be a positive number of transactions or sends per second up to %g, got %v", MaxRate, s.Rate)
	}
	if err := s.validateArrival(); err != nil {
		return err
	}
	if err := s.validateFlows(); err != nil {
		return err
	}
	if err := s.validateLiveness(); err != nil {
		return err
	}
	if err := s.validateKnobs(); err != nil {
		return err
	}
	return s.validateControl()
}

// validateEnd checks how the test ends: duration, transactions, bytes, and
// the interim interval that must fit inside it.
func (s *Spec) validateEnd() error {
	if s.Duration < 0 {
		return bad("duration", "must not be negative, got %v", s.Duration)
	}
	if s.Duration == 0 && s.Transactions == 0 && s.Bytes == 0 {
		return bad("duration", "must be positive when no transaction or byte count is given")
	}
	if s.Interval < 0 || s.Interval > 0 && s.Interval < MinInterval {
		return bad("interval", "must be at least %v, got %v", MinInterval, s.Interval)
	}
	if s.Interval > 0 && s.Duration > 0 {
		if s.Interval > s.Duration {
			return bad("interval", "%v is longer than the test (duration %v): there would be no interim sample", s.Interval, s.Duration)
		}
		if s.Duration/s.Interval > MaxSamples {
			return bad("interval", "%v over %v gives more than %d samples; choose a longer interval", s.Interval, s.Duration, MaxSamples)
		}
	}
	return nil
}

// validateSizes checks message sizes against what the workload can carry.
func (s *Spec) validateSizes() error {
	max := MaxMessage
	what := "bytes"
	if s.Workload.Datagram {
		max, what = MaxDatagram, "bytes (the most a UDP datagram carries)"
	}
	if s.Workload.Messages {
		if s.Request < 1 || s.Request > max {
			return bad("request", "must be between 1 and %d %s, got %d", max, what, s.Request)
		}
		if s.Response < 1 || s.Response > max {
			return bad("response", "must be between 1 and %d %s, got %d", max, what, s.Response)
		}
	}
	if s.SendSize < 0 || s.SendSize > max {
		return bad("send_size", "must be between 1 and %d %s, got %d", max, what, s.SendSize)
	}
	if s.RecvSize < 0 || s.RecvSize > MaxMessage {
		return bad("recv_size", "must be between 1 and %d bytes, got %d", MaxMessage, s.RecvSize)
	}
	if s.Workload.ClientSends() && s.Workload.Datagram && s.RecvSize > 0 && s.RecvSize < s.SendSize {
		return bad("recv_size", "%d is shorter than send_size %d: each datagram would be cut short", s.RecvSize, s.SendSize)
	}
	return nil
}

// validateBuffers checks the socket buffer sizes.
func (s *Spec) validateBuffers() error {
	for _, b := range []struct {
		name string
		v    int
	}{
		{"send_buffer", s.SendBuffer}, {"recv_buffer", s.RecvBuffer},
		{"remote_send_buffer", s.RemoteSendBuffer}, {"remote_recv_buffer", s.RemoteRecvBuffer},
	} {
		if b.v < 0 {
			return bad(b.name, "must not be negative, got %d (0 keeps the kernel's default)", b.v)
		}
		if b.v > MaxBuffer {
			return bad(b.name, "must be at most %d bytes, got %d", MaxBuffer, b.v)
		}
	}
	return nil
}

// validateCPU checks the CPU binding: the local CPU must exist here; the
// remote one is checked by the server.
func (s *Spec) validateCPU() error {
	if s.CPU != nil {
		if *s.CPU < 0 {
			return bad("cpu", "must not be negative, got %d", *s.CPU)
		}
		if err := cpu.Check(*s.CPU); err != nil {
			var nc *cpu.NoSuchCPUError
			if errors.As(err, &nc) {
				return bad("cpu", "%v", err)
			}
			return bad("cpu", "cannot check cpu %d: %v", *s.CPU, err)
		}
	}
	if s.RemoteCPU != nil && *s.RemoteCPU < 0 {
		return bad("remote_cpu", "must not be negative, got %d", *s.RemoteCPU)
	}
	return nil
}

// validateControl checks the options that need, or cannot have, a control
// connection.
func (s *Spec) validateControl() error {
	if s.Client != "" && s.Host == "" {
		return bad("client", "needs host: the daemon %s runs the client side toward a server, so name that server's address with host", s.Client)
	}
	if !s.NoControl {
		return nil
	}
	if s.DataPort == 0 && len(s.DataPorts) == 0 {
		return &OptionError{Option: "control", Err: ErrNeedsDataPort}
	}
	for _, o := range []struct {
		name string
		set  bool
	}{
		{"remote_send_buffer", s.RemoteSendBuffer != 0}, {"remote_recv_buffer", s.RemoteRecvBuffer != 0},
		{"remote_cpu", s.RemoteCPU != nil},
		// When the server does the sending, only a control connection
		// can tell it how.
		{"send_size", s.Workload.ServerSends && s.SendSize != 0},
		{"bytes", s.Workload.ServerSends && s.Bytes != 0},
		{"rate", s.Workload.ServerSends && s.Rate != 0},
	} {
		if o.set {
			return &OptionError{Option: o.name, Err: ErrNeedsControl}
		}
	}
	return nil
}
