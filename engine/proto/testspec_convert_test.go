package proto

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"netscript/engine/sock"
	"netscript/engine/spec"
)

// everySpec is the spec.Spec of RunClient.every_field: no field zero.
func everySpec() spec.Spec {
	return spec.Spec{
		Workload: spec.TCPCRR, Host: "198.18.0.2", Port: 12867, Duration: 3 * time.Second,
		Transactions: 1000, Request: 10, Response: 20, Burst: 3, NoDelay: true,
		Local: "198.18.1.7", LocalPort: 4000, DataPort: 40000, Family: sock.Inet6,
		Brand: "every-field", Timeout: 250 * time.Millisecond, ConnectTimeout: 2 * time.Second,
		SendSize: 8192, RecvSize: 16384, Bytes: 1 << 20, FastOpen: true, CPUUtil: true,
		SendBuffer: 65536, RecvBuffer: 131072, RemoteSendBuffer: 98304, RemoteRecvBuffer: 196608,
		CPU: ip(1), RemoteCPU: ip(0), Interval: 500 * time.Millisecond, Rate: 1234.5,
		NoControl: true, Flows: 3, Locals: []string{"198.18.1.7", "198.18.1.8", "198.18.1.9"},
		LocalPorts: []int{4001, 4002, 4003}, DataPorts: []int{40001, 40002, 40003},
		LocalPortRange: &spec.PortRange{Lo: 5000, Hi: 5999}, Client: "198.18.0.9:12866",
	}
}

// sinceV3 are the fields of spec.Spec added after testdata/v3 was
// recorded: optional on the wire (omitted when zero), so everySpec leaves
// them zero to encode as the recording; TestLivenessOnTheWire and
// TestArrivalOnTheWire cover them.
var sinceV3 = map[string]bool{"Liveness": true, "Server": true, "Knobs": true, "Arrival": true, "Connections": true, "File": true, "Protocol": true}

// runClientPayload is what RunClient carrying s puts on the wire.
func runClientPayload(t *testing.T, s *spec.Spec) []byte {
	t.Helper()
	b, err := AppendFrame(nil, TypeRunClient, RunClient{Test: TestSpecFrom(s)})
	if err != nil {
		t.Fatal(err)
	}
	return b[5:]
}

// TestSpecRoundTrip: a spec with every field set goes to the wire as the
// previous release sent it (byte for byte) and comes back unchanged; each
// workload's default spec as the previous release sent it reads as this
// release's default (which no longer gives a stream a request size or a
// TCP test UDP's loss timeout), and this release's default comes back
// unchanged.
func TestSpecRoundTrip(t *testing.T) {
	s := everySpec()
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		if v.Field(i).IsZero() && !sinceV3[v.Type().Field(i).Name] {
			t.Errorf("everySpec leaves %s zero", v.Type().Field(i).Name)
		}
	}
	cases := []struct {
		recording string
		spec      spec.Spec
	}{
		{"RunClient.every_field", s},
		{"RunClient.default_TCP_RR", spec.Default(spec.TCPRR)},
		{"RunClient.default_TCP_CRR", spec.Default(spec.TCPCRR)},
		{"RunClient.default_UDP_RR", spec.Default(spec.UDPRR)},
		{"RunClient.default_TCP_STREAM", spec.Default(spec.TCPStream)},
		{"RunClient.default_TCP_MAERTS", spec.Default(spec.TCPMaerts)},
		{"RunClient.default_UDP_STREAM", spec.Default(spec.UDPStream)},
	}
	for i, c := range cases {
		_, rec := recorded(t, c.recording)
		if got := runClientPayload(t, &c.spec); i == 0 && !bytes.Equal(got, rec) {
			t.Errorf("%s: sent as\n%s\nthe previous release sent\n%s", c.recording, got, rec)
		}
		ts := TestSpecFrom(&c.spec)
		back, err := ts.ToSpec()
		if err != nil {
			t.Errorf("%s: %v", c.recording, err)
		}
		if !reflect.DeepEqual(back, c.spec) {
			t.Errorf("%s: came back as\n%+v\nwant\n%+v", c.recording, back, c.spec)
		}
		var m RunClient
		if err := Decode(TypeRunClient, rec, &m); err != nil {
			t.Fatal(err)
		}
		if got, err := m.Test.ToSpec(); err != nil || !reflect.DeepEqual(got, c.spec) {
			t.Errorf("%s: the recording reads as %+v (%v)", c.recording, got, err)
		}
	}
	// The conversions copy: the spec and its wire form share nothing.
	ts := TestSpecFrom(&s)
	*ts.CPU, ts.Locals[0], ts.LocalPortRange.Lo = 7, "x", 1
	back, _ := ts.ToSpec()
	*back.RemoteCPU, back.DataPorts[0] = 7, 1
	if !reflect.DeepEqual(s, everySpec()) || *ts.RemoteCPU != 0 || ts.DataPorts[0] != 40001 {
		t.Errorf("the conversions share memory")
	}
}

// TestTestSpecCoversSpec: TestSpec carries every field of spec.Spec,
// under the field's name and in its order, so a field added to spec.Spec
// fails here until the wire carries it (a protocol version change).
func TestTestSpecCoversSpec(t *testing.T) {
	st, tt := reflect.TypeFor[spec.Spec](), reflect.TypeFor[TestSpec]()
	if st.NumField() != tt.NumField() {
		t.Errorf("spec.Spec has %d fields, TestSpec %d", st.NumField(), tt.NumField())
	}
	for i := range min(st.NumField(), tt.NumField()) {
		if sn, tn := st.Field(i).Name, strings.TrimSuffix(tt.Field(i).Tag.Get("json"), ",omitempty"); sn != tn {
			t.Errorf("field %d: spec.Spec has %s, TestSpec carries %q", i, sn, tn)
		}
	}
}

// TestWorkloadCodes: the codes 1-6 are frozen, both ways (7, TCP_CC, came
// with the registry); a code no workload has is refused by the
// conversion, naming the field.
func TestWorkloadCodes(t *testing.T) {
	frozen := map[int]string{1: "TCP_RR", 2: "TCP_CRR", 3: "UDP_RR", 4: "TCP_STREAM", 5: "TCP_MAERTS", 6: "UDP_STREAM"}
	for code, name := range frozen {
		w, err := spec.LookupWorkload(name)
		if err != nil {
			t.Fatal(err)
		}
		s := spec.Default(w)
		ts := TestSpecFrom(&s)
		if ts.Workload != code {
			t.Errorf("%s goes to the wire as %d, frozen as %d", name, ts.Workload, code)
		}
		if back, err := ts.ToSpec(); err != nil || back.Workload != w {
			t.Errorf("code %d comes back as %v (%v), want %s", code, back.Workload, err, name)
		}
	}
	for _, code := range []int{99, 1 << 40} {
		ts := defaultTestSpec(code)
		_, err := ts.ToSpec()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "Workload" {
			t.Errorf("code %d: got %v, want a Workload error", code, err)
		}
	}
}

// TestFamilyCodes: sock's families and the wire's codes, both ways; a
// family sock does not know reaches the wire as itself and is refused.
func TestFamilyCodes(t *testing.T) {
	for f, code := range map[sock.Family]Family{sock.Auto: 0, sock.Inet: 1, sock.Inet6: 2} {
		s := spec.Default(spec.TCPRR)
		s.Family = f
		ts := TestSpecFrom(&s)
		if ts.Family != code || ts.Family.String() != f.String() {
			t.Errorf("%v goes to the wire as %d (%v), want %d", f, int(ts.Family), ts.Family, int(code))
		}
		if back, err := ts.ToSpec(); err != nil || back.Family != f {
			t.Errorf("code %d comes back as %v (%v), want %v", code, back.Family, err, f)
		}
	}
	s := spec.Default(spec.TCPRR)
	s.Family = 7
	ts := TestSpecFrom(&s)
	var fe *FieldError
	if _, err := ts.ToSpec(); !errors.As(err, &fe) || fe.Field != "Family" || ts.Family != 7 {
		t.Errorf("family 7: sent as %d, read as %v", int(ts.Family), err)
	}
}

// TestNewFieldsOnTheWire: tcp_bidir's connections, tcp_sendfile's file and
// protocol travel to a daemon's client side and come back as they were;
// a test without them reads as the release before them sent it.
func TestNewFieldsOnTheWire(t *testing.T) {
	s := spec.Default(spec.TCPBidir)
	s.Connections, s.Protocol = 2, spec.ProtocolMPTCP
	f := spec.Default(spec.TCPSendfile)
	f.File = "/var/tmp/data"
	for _, in := range []spec.Spec{s, f} {
		b := runClientPayload(t, &in)
		var m RunClient
		if err := Decode(TypeRunClient, b, &m); err != nil {
			t.Fatal(err)
		}
		back, err := m.Test.ToSpec()
		if err != nil || !reflect.DeepEqual(back, in) {
			t.Errorf("%s came back as %+v (%v)", in.Workload.Name, back, err)
		}
	}
	plain := spec.Default(spec.TCPStream)
	if b := runClientPayload(t, &plain); bytes.Contains(b, []byte("Connections")) || bytes.Contains(b, []byte("Protocol")) || bytes.Contains(b, []byte(`"File"`)) {
		t.Errorf("a test without the new fields carries them: %s", b)
	}
}
