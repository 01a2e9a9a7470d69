package proto

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodeStrict: Decode refuses what the version-3 schema does not
// hold, and says which message and which field.
func TestDecodeStrict(t *testing.T) {
	const mal = "malformed control frame: "
	cases := []struct {
		name string
		typ  Type
		in   string
		want string // the whole error; "" for success; "~..." a part of it
	}{
		// The recorded shapes decode; JSON whitespace may end a payload.
		{"good setup", TypeSetup, `{"test":"TCP_RR","request":5}`, ""},
		{"good run_client", TypeRunClient, `{"spec":{"Workload":1,"Family":2,"Duration":0}}`, ""},
		{"trailing whitespace", TypeStop, "{} \r\n\t", ""},

		// A field the message does not have, at any depth.
		{"unknown field", TypeSetup, `{"test":"TCP_RR","colour":"red"}`, mal + `Setup payload: unknown field "colour"`},
		{"unknown field of an empty message", TypeStop, `{"now":true}`, mal + `Stop payload: unknown field "now"`},
		{"unknown nested field", TypeReady, `{"data_port":1,"buffers":{"send":1,"huge":2}}`, mal + `Ready payload: unknown field "huge"`},
		{"unknown field of the server's env", TypeReady, `{"server":{"version":"1","env":{"cpus":2,"gpus":1}}}`, mal + `Ready payload: unknown field "gpus"`},
		{"unknown field of a TestSpec", TypeRunClient, `{"spec":{"Workload":1,"Colour":1}}`, mal + `RunClient payload: unknown field "Colour"`},
		{"unknown field of a port range", TypeRunClient, `{"spec":{"Workload":3,"LocalPortRange":{"Lo":1,"Mid":2}}}`, mal + `RunClient payload: unknown field "Mid"`},
		{"unknown field beside spec", TypeRunClient, `{"spec":{"Workload":1},"test":{}}`, mal + `RunClient payload: unknown field "test"`},

		// What TestSpec.Check refuses, through Decode.
		{"family out of range", TypeRunClient, `{"spec":{"Workload":1,"Family":3}}`, mal + "RunClient payload: spec: Family: 3 is not a family (0 auto, 1 inet, 2 inet6)"},
		{"negative family", TypeRunClient, `{"spec":{"Workload":1,"Family":-1}}`, mal + "RunClient payload: spec: Family: -1 is not a family (0 auto, 1 inet, 2 inet6)"},
		{"workload 0", TypeRunClient, `{"spec":{"Workload":0,"Host":"h"}}`, mal + "RunClient payload: spec: Workload: 0 is not a workload code (codes start at 1)"},
		{"no workload", TypeRunClient, `{"spec":{"Host":"h"}}`, mal + "RunClient payload: spec: Workload: 0 is not a workload code (codes start at 1)"},
		{"spec null", TypeRunClient, `{"spec":null}`, mal + "RunClient payload: spec: Workload: 0 is not a workload code (codes start at 1)"},
		{"no spec", TypeRunClient, `{}`, mal + "RunClient payload: spec: Workload: 0 is not a workload code (codes start at 1)"},
		{"negative duration", TypeRunClient, `{"spec":{"Workload":1,"Duration":-1}}`, mal + "RunClient payload: spec: Duration: -1 ns is negative"},
		{"negative timeout", TypeRunClient, `{"spec":{"Workload":3,"Timeout":-5}}`, mal + "RunClient payload: spec: Timeout: -5 ns is negative"},
		{"negative connect timeout", TypeRunClient, `{"spec":{"Workload":1,"ConnectTimeout":-1000}}`, mal + "RunClient payload: spec: ConnectTimeout: -1000 ns is negative"},
		{"negative interval", TypeRunClient, `{"spec":{"Workload":1,"Interval":-9223372036854775808}}`, mal + "RunClient payload: spec: Interval: -9223372036854775808 ns is negative"},

		// A value of the wrong JSON type names the field.
		{"workload by name", TypeRunClient, `{"spec":{"Workload":"TCP_RR"}}`, "~RunClient payload: cannot unmarshal string into Go struct field TestSpec.spec.Workload"},
		{"family by name", TypeRunClient, `{"spec":{"Workload":1,"Family":"inet"}}`, "~RunClient payload: cannot unmarshal string into Go struct field TestSpec.spec.Family"},
		{"duration as a string", TypeRunClient, `{"spec":{"Workload":1,"Duration":"10s"}}`, "~RunClient payload: cannot unmarshal string into Go struct field TestSpec.spec.Duration"},
		{"fractional cpu", TypeRunClient, `{"spec":{"Workload":1,"CPU":1.5}}`, "~RunClient payload: cannot unmarshal number 1.5 into Go struct field TestSpec.spec.CPU"},
		{"spec an array", TypeRunClient, `{"spec":[1,2]}`, "~RunClient payload: cannot unmarshal array into Go struct field RunClient.spec"},
		{"request a string", TypeSetup, `{"request":"five"}`, "~Setup payload: cannot unmarshal string into Go struct field Setup.request"},

		// One JSON value and nothing after it.
		{"two values", TypeStop, `{} {}`, mal + "Stop payload: trailing data"},
		{"stray bracket", TypeStop, `{}]`, mal + "Stop payload: trailing data"},
		{"stray brace", TypeSetup, `{"test":"TCP_RR"}}`, mal + "Setup payload: trailing data"},
		{"empty", TypeStop, ``, mal + "Stop payload: EOF"},
	}
	for _, c := range cases {
		v := messageFor(c.typ)
		err := Decode(c.typ, []byte(c.in), v)
		var fe *FrameError
		switch {
		case c.want == "":
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		case err == nil:
			t.Errorf("%s: %s decoded", c.name, c.in)
		case !errors.As(err, &fe):
			t.Errorf("%s: %v is no FrameError", c.name, err)
		case strings.HasPrefix(c.want, "~"):
			if !strings.Contains(err.Error(), c.want[1:]) {
				t.Errorf("%s: got %q, want it to hold %q", c.name, err, c.want[1:])
			}
		case err.Error() != c.want:
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, err, c.want)
		}
	}
}

// TestTestSpecCheck: Check takes every value a release of version 3 can
// mean, whatever the workload code, and names the field of one it cannot.
func TestTestSpecCheck(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*TestSpec)
		field string // the FieldError's field; "" for none
	}{
		{"every field", func(*TestSpec) {}, ""},
		{"family auto", func(s *TestSpec) { s.Family = FamilyAuto }, ""},
		{"family inet", func(s *TestSpec) { s.Family = FamilyInet }, ""},
		{"zero durations", func(s *TestSpec) { s.DurationNs, s.TimeoutNs, s.ConnectTimeoutNs, s.IntervalNs = 0, 0, 0, 0 }, ""},
		{"a code proto does not know", func(s *TestSpec) { s.Workload = 7 }, ""}, // for the converter to judge
		{"family 3", func(s *TestSpec) { s.Family = 3 }, "Family"},
		{"family -1", func(s *TestSpec) { s.Family = -1 }, "Family"},
		{"workload 0", func(s *TestSpec) { s.Workload = 0 }, "Workload"},
		{"workload -6", func(s *TestSpec) { s.Workload = -6 }, "Workload"},
		{"negative duration", func(s *TestSpec) { s.DurationNs = -1 }, "Duration"},
		{"negative timeout", func(s *TestSpec) { s.TimeoutNs = -1 }, "Timeout"},
		{"negative connect timeout", func(s *TestSpec) { s.ConnectTimeoutNs = -1 }, "ConnectTimeout"},
		{"negative interval", func(s *TestSpec) { s.IntervalNs = -1 }, "Interval"},
	}
	for _, c := range cases {
		s := everyField
		c.edit(&s)
		err := s.Check()
		var fe *FieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field == "":
		case !errors.As(err, &fe) || fe.Field != c.field || !strings.HasPrefix(err.Error(), c.field+": "):
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.field)
		}
	}
}
