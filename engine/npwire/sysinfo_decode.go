package npwire

import (
	"fmt"
	"strings"
)

// Sysinfo is what a netserver says of its machine in answer to
// DO_SYSINFO: uname's fields, as text. netperf 2.7's netserver no longer
// tells them and sends "Deprecated" for each (Deprecated reports that).
type Sysinfo struct {
	Sysname, Release, Version, Machine string
}

// SysinfoDeprecated is what netperf 2.7's netserver sends for every field.
const SysinfoDeprecated = "Deprecated"

// Deprecated reports whether the netserver told nothing (netperf 2.7).
func (s Sysinfo) Deprecated() bool {
	return s.Sysname == SysinfoDeprecated && s.Release == SysinfoDeprecated &&
		s.Version == SysinfoDeprecated && s.Machine == SysinfoDeprecated
}

// SysinfoRequest is the DO_SYSINFO request.
func SysinfoRequest() *Message { return &Message{Type: TypeDoSysinfo, Word2: -1} }

// DecodeSysinfo reads a SYSINFO_RESPONSE: one character array (never
// converted), whose first character separates the four fields that
// follow it (",Linux,6.8.0,#1 SMP,x86_64").
func DecodeSysinfo(m *Message) (Sysinfo, error) {
	if err := CheckResponse(m, TypeDoSysinfo, TypeSysinfoResponse); err != nil {
		return Sysinfo{}, err
	}
	s := m.String(0, len(m.Body))
	if s == "" {
		return Sysinfo{}, fmt.Errorf("netserver's SYSINFO_RESPONSE is empty")
	}
	f := strings.Split(s[1:], s[:1])
	if len(f) != 4 {
		return Sysinfo{}, fmt.Errorf("netserver's SYSINFO_RESPONSE has %d fields, want 4", len(f))
	}
	clean := func(v string) string { return printable([]byte(v), 128) }
	return Sysinfo{Sysname: clean(f[0]), Release: clean(f[1]), Version: clean(f[2]), Machine: clean(f[3])}, nil
}
