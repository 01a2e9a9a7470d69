package npwire

import (
	"reflect"
	"testing"
)

func TestSysinfoAndCalibrate(t *testing.T) {
	m := (&SysinfoResponse{Fields: []string{"Deprecated", "Deprecated", "Deprecated", "Deprecated"}}).Message()
	if got := m.String(0, len(m.Body)); got != SysinfoDeprecatedAnswer {
		t.Errorf("sysinfo body %q", got)
	}
	if m.Type != TypeSysinfoResponse {
		t.Errorf("type %d", m.Type)
	}
	// What the server sends, the client reads (DecodeSysinfo).
	if got, err := DecodeSysinfo(m); err != nil || !got.Deprecated() {
		t.Errorf("decoded as %+v, %v", got, err)
	}
	c := &CPUCalibrateResponse{Rate: 100, NumCPUs: 2}
	cm := c.Message(0)
	if cm.Float(0) != 100 || cm.Word(1) != 2 || cm.Type != TypeCPUCalibrate {
		t.Errorf("calibrate words %#x %#x", cm.Word(0), cm.Word(1))
	}
	if got := DecodeCPUCalibrateResponse(cm); !reflect.DeepEqual(got, c) {
		t.Errorf("round trip %+v", got)
	}
}
