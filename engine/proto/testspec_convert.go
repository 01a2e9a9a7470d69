package proto

// This file is the one place of the package that knows spec.Spec: it
// converts between a test as the engine describes it and its wire form,
// TestSpec. The rest of the package depends on neither spec nor sock.

import (
	"fmt"
	"slices"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// TestSpecFrom is the wire form of s.
func TestSpecFrom(s *spec.Spec) TestSpec {
	t := TestSpec{
		Workload:         s.Workload.Code,
		Host:             s.Host,
		Port:             s.Port,
		DurationNs:       int64(s.Duration),
		Transactions:     s.Transactions,
		Request:          s.Request,
		Response:         s.Response,
		Burst:            s.Burst,
		NoDelay:          s.NoDelay,
		Local:            s.Local,
		LocalPort:        s.LocalPort,
		DataPort:         s.DataPort,
		Family:           familyCode(s.Family),
		Brand:            s.Brand,
		TimeoutNs:        int64(s.Timeout),
		ConnectTimeoutNs: int64(s.ConnectTimeout),
		SendSize:         s.SendSize,
		RecvSize:         s.RecvSize,
		Bytes:            s.Bytes,
		FastOpen:         s.FastOpen,
		CPUUtil:          s.CPUUtil,
		SendBuffer:       s.SendBuffer,
		RecvBuffer:       s.RecvBuffer,
		RemoteSendBuffer: s.RemoteSendBuffer,
		RemoteRecvBuffer: s.RemoteRecvBuffer,
		CPU:              cloneInt(s.CPU),
		RemoteCPU:        cloneInt(s.RemoteCPU),
		IntervalNs:       int64(s.Interval),
		Rate:             s.Rate,
		NoControl:        s.NoControl,
		LivenessNs:       int64(s.Liveness),
		Server:           s.Server,
		Flows:            s.Flows,
		Locals:           slices.Clone(s.Locals),
		LocalPorts:       slices.Clone(s.LocalPorts),
		DataPorts:        slices.Clone(s.DataPorts),
		Client:           s.Client,
		Connections:      s.Connections,
		File:             s.File,
		Protocol:         s.Protocol,
	}
	if r := s.LocalPortRange; r != nil {
		t.LocalPortRange = &PortRange{Lo: r.Lo, Hi: r.Hi}
	}
	t.Knobs = KnobsFrom(&s.Knobs)
	t.Arrival = arrivalFrom(&s.Arrival)
	return t
}

// arrivalFrom is the wire form of a, or nil for the closed model.
func arrivalFrom(a *spec.Arrival) *Arrival {
	if !a.Given() {
		return nil
	}
	w := &Arrival{Rate: a.Rate, Kind: a.Kind}
	for _, st := range a.Ramp {
		w.Ramp = append(w.Ramp, ArrivalStage{Target: st.Target, DurationNs: int64(st.Duration)})
	}
	return w
}

// spec is the schedule a describes; the closed model's for nil.
func (a *Arrival) spec() spec.Arrival {
	if a == nil {
		return spec.Arrival{}
	}
	s := spec.Arrival{Rate: a.Rate, Kind: a.Kind}
	for _, st := range a.Ramp {
		s.Ramp = append(s.Ramp, spec.Stage{Target: st.Target, Duration: time.Duration(st.DurationNs)})
	}
	return s
}

// ToSpec is the test t describes. It refuses what Check refuses and a
// workload code this build does not know; the rest is for spec.Validate
// to judge.
func (t *TestSpec) ToSpec() (spec.Spec, error) {
	if err := t.Check(); err != nil {
		return spec.Spec{}, err
	}
	w, err := spec.WorkloadByCode(t.Workload)
	if err != nil {
		return spec.Spec{}, &FieldError{"Workload", fmt.Sprintf("%d is not the code of a workload this netscript knows", t.Workload)}
	}
	s := spec.Spec{
		Workload:         w,
		Host:             t.Host,
		Port:             t.Port,
		Duration:         time.Duration(t.DurationNs),
		Transactions:     t.Transactions,
		Request:          t.Request,
		Response:         t.Response,
		Burst:            t.Burst,
		NoDelay:          t.NoDelay,
		Local:            t.Local,
		LocalPort:        t.LocalPort,
		DataPort:         t.DataPort,
		Family:           sockFamily(t.Family),
		Brand:            t.Brand,
		Timeout:          time.Duration(t.TimeoutNs),
		ConnectTimeout:   time.Duration(t.ConnectTimeoutNs),
		SendSize:         t.SendSize,
		RecvSize:         t.RecvSize,
		Bytes:            t.Bytes,
		FastOpen:         t.FastOpen,
		CPUUtil:          t.CPUUtil,
		SendBuffer:       t.SendBuffer,
		RecvBuffer:       t.RecvBuffer,
		RemoteSendBuffer: t.RemoteSendBuffer,
		RemoteRecvBuffer: t.RemoteRecvBuffer,
		CPU:              cloneInt(t.CPU),
		RemoteCPU:        cloneInt(t.RemoteCPU),
		Interval:         time.Duration(t.IntervalNs),
		Rate:             t.Rate,
		NoControl:        t.NoControl,
		Liveness:         time.Duration(t.LivenessNs),
		Server:           t.Server,
		Flows:            t.Flows,
		Locals:           slices.Clone(t.Locals),
		LocalPorts:       slices.Clone(t.LocalPorts),
		DataPorts:        slices.Clone(t.DataPorts),
		Client:           t.Client,
		Connections:      t.Connections,
		File:             t.File,
		Protocol:         t.Protocol,
	}
	if r := t.LocalPortRange; r != nil {
		s.LocalPortRange = &spec.PortRange{Lo: r.Lo, Hi: r.Hi}
	}
	s.Knobs = t.Knobs.Sock()
	s.Arrival = t.Arrival.spec()
	legacyDefaults(&s)
	return s, nil
}

// legacyDefaults clears what the senders of the release before the
// workload registry put in every test as its defaults (one-byte requests
// and responses, UDP_RR's loss timeout) from a test whose workload does
// not take them, so a test they send reads as the same test.
func legacyDefaults(s *spec.Spec) {
	w := s.Workload
	if !w.Accepts(spec.OptRequest) && s.Request == 1 {
		s.Request = 0
	}
	if !w.Accepts(spec.OptResponse) && s.Response == 1 {
		s.Response = 0
	}
	if !w.Accepts(spec.OptTimeout) && s.Timeout == spec.DefaultUDPTimeout {
		s.Timeout = 0
	}
}

// familyCode is f's wire code. A family sock does not know keeps its
// number, which Check refuses on the other side.
func familyCode(f sock.Family) Family {
	switch f {
	case sock.Auto:
		return FamilyAuto
	case sock.Inet:
		return FamilyInet
	case sock.Inet6:
		return FamilyInet6
	}
	return Family(f)
}

// sockFamily is the family of code f, which Check has accepted.
func sockFamily(f Family) sock.Family {
	switch f {
	case FamilyInet:
		return sock.Inet
	case FamilyInet6:
		return sock.Inet6
	}
	return sock.Auto
}

func cloneInt(p *int) *int {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
