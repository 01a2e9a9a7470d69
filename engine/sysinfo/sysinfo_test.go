package sysinfo

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCPUModel(t *testing.T) {
	cases := []struct {
		name, cpuinfo, want string
	}{
		// x86: the first "model name" line.
		{"x86", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n", "AMD EPYC 7B13"},
		// Older ARM kernels name the SoC on a Hardware line.
		{"arm", "Processor\t: ARMv7 Processor rev 4 (v7l)\nHardware\t: BCM2835\n", "ARMv7 Processor rev 4 (v7l)"},
		// arm64 kernels give only numbers; nothing is a model name.
		{"arm64", "processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n", ""},
		// An empty value does not count.
		{"empty value", "model name\t:\ncpu model\t: MIPS 24Kc V7.4\n", "MIPS 24Kc V7.4"},
		{"nothing", "", ""},
	}
	for _, c := range cases {
		if got := cpuModel([]byte(c.cpuinfo)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCountCPUList(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{"0", 1},           // one CPU
		{"0-1", 2},         // a range
		{"0-3,8,10-11", 7}, // ranges and singles
		{"", 0},            // nothing
		{"3-1", 0},         // a backwards range does not parse
		{"a-b", 0},         // nor does garbage
	}
	for _, c := range cases {
		if got := countCPUList(c.in); got != c.want {
			t.Errorf("countCPUList(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestCollectFrom reads a fake /proc and /sys: values are normalised and a
// sysctl the kernel lacks is left out, not reported empty.
func TestCollectFrom(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/cpuinfo":                                         {Data: []byte("model name\t: Test CPU\n")},
		"sys/devices/system/cpu/online":                        {Data: []byte("0-7\n")},
		"proc/sys/net/ipv4/tcp_rmem":                           {Data: []byte("4096\t131072\t6291456\n")},
		"proc/sys/net/ipv4/tcp_fastopen":                       {Data: []byte("1\n")},
		"proc/sys/net/ipv4/ip_local_port_range":                {Data: []byte("32768\t60999\n")},
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": {Data: []byte("performance\n")},
	}
	info := collectFrom(fsys)
	if info.CPUModel != "Test CPU" || info.CPUs != 8 || info.CPUGovernor != "performance" {
		t.Errorf("cpu: %+v", info)
	}
	want := map[string]string{
		"net.ipv4.tcp_rmem":            "4096 131072 6291456",
		"net.ipv4.tcp_fastopen":        "1",
		"net.ipv4.ip_local_port_range": "32768 60999",
	}
	if len(info.Sysctls) != len(want) {
		t.Errorf("sysctls: got %v, want %v", info.Sysctls, want)
	}
	for k, v := range want {
		if info.Sysctls[k] != v {
			t.Errorf("%s = %q, want %q", k, info.Sysctls[k], v)
		}
	}
}

// TestCollect reads this machine: what every Linux box has is there, and
// the whole thing survives a JSON round trip (records keep it that way).
func TestCollect(t *testing.T) {
	info := Collect("1.2.3", "abc1234")
	if info.Netscript != "1.2.3" || info.Commit != "abc1234" || info.Go != runtime.Version() {
		t.Errorf("build: %+v", info)
	}
	if info.UsableCPUs < 1 {
		t.Errorf("usable_cpus = %d", info.UsableCPUs)
	}
	if runtime.GOOS == "linux" {
		if info.Kernel == "" || info.CPUs < 1 {
			t.Errorf("kernel %q, cpus %d", info.Kernel, info.CPUs)
		}
		for _, name := range []string{"net.ipv4.tcp_rmem", "net.core.rmem_max", "net.ipv4.ip_local_port_range"} {
			if info.Sysctls[name] == "" {
				t.Errorf("sysctl %s missing: %v", name, info.Sysctls)
			}
		}
	}
	b, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	var back Info
	if err := json.Unmarshal(b, &back); err != nil || back.Kernel != info.Kernel || len(back.Sysctls) != len(info.Sysctls) {
		t.Errorf("round trip: %v %+v", err, back)
	}
	s := info.String()
	if !strings.Contains(s, "netscript 1.2.3 (abc1234)") || !strings.Contains(s, runtime.Version()) {
		t.Errorf("String() = %q", s)
	}
	info.Cgo = true
	if s := info.String(); !strings.Contains(s, "netscript 1.2.3 (abc1234) cgo") {
		t.Errorf("String() of a cgo build = %q", s)
	}
}

func TestFastOpenFrom(t *testing.T) {
	for _, tc := range []struct {
		file string // contents; "-" for no file
		want int
	}{
		{"3\n", 3},
		{"1", 1},
		{"0x603\n", 0x603},
		{"-", -1},
		{"", -1},
		{"banana\n", -1},
		{"-2\n", -1},
	} {
		fsys := fstest.MapFS{}
		if tc.file != "-" {
			fsys["proc/sys/net/ipv4/tcp_fastopen"] = &fstest.MapFile{Data: []byte(tc.file)}
		}
		if got := fastOpenFrom(fsys); got != tc.want {
			t.Errorf("tcp_fastopen %q: got %d, want %d", tc.file, got, tc.want)
		}
	}
	if runtime.GOOS == "linux" {
		if v := FastOpen(); v < 0 {
			t.Errorf("FastOpen() = %d on Linux; /proc/sys/net/ipv4/tcp_fastopen should be readable", v)
		}
	}
}
