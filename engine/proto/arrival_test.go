package proto

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"netscript/engine/spec"
)

// TestArrivalOnTheWire: the open model's schedule goes to the daemon that
// runs a test's client side (client=) and comes back unchanged, constant,
// Poisson and ramped; a closed-model test carries no "Arrival", so it
// encodes as before; a negative stage is refused, naming the field.
func TestArrivalOnTheWire(t *testing.T) {
	for _, a := range []spec.Arrival{
		{Rate: 250},
		{Rate: 100, Kind: spec.ArrivalPoisson},
		{Ramp: []spec.Stage{{Target: 500, Duration: time.Second}, {Target: 0, Duration: 250 * time.Millisecond}}},
	} {
		s := spec.Default(spec.TCPRR)
		s.Arrival = a
		ts := TestSpecFrom(&s)
		back, err := ts.ToSpec()
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Errorf("%+v came back as %+v (%v)", a, back.Arrival, err)
		}
		var m RunClient
		if err := Decode(TypeRunClient, runClientPayload(t, &s), &m); err != nil {
			t.Fatal(err)
		}
		if got, err := m.Test.ToSpec(); err != nil || !reflect.DeepEqual(got.Arrival, a) {
			t.Errorf("%+v read from the wire as %+v (%v)", a, got.Arrival, err)
		}
	}
	s := spec.Default(spec.TCPRR)
	if b := runClientPayload(t, &s); bytes.Contains(b, []byte("Arrival")) {
		t.Errorf("a closed-model test carries Arrival: %s", b)
	}
	s.Arrival = spec.Arrival{Ramp: []spec.Stage{{Target: 5, Duration: -time.Second}}}
	ts := TestSpecFrom(&s)
	if _, err := ts.ToSpec(); err == nil || err.(*FieldError).Field != "Arrival" {
		t.Errorf("a negative stage: %v, want a FieldError naming Arrival", err)
	}
}
