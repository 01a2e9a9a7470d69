// Package sysinfo describes the machine a test ran on: kernel, CPU, the
// sysctls that move network benchmark results, and the build of netscript.
// A record of a run keeps it so a figure can be reproduced, or its
// difference from another explained; the server can send its own over the
// control protocol. It has no Starlark in it.
package sysinfo

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Info is what Collect found. The json tags are the field names scripts see
// in env() and records keep.
type Info struct {
	Hostname      string `json:"hostname"`
	OS            string `json:"os"`             // runtime.GOOS
	Arch          string `json:"arch"`           // runtime.GOARCH
	Kernel        string `json:"kernel"`         // release, as `uname -r` prints it
	KernelVersion string `json:"kernel_version"` // build string, as `uname -v` prints it
	CPUModel      string `json:"cpu_model"`
	CPUs          int    `json:"cpus"`         // online CPUs
	UsableCPUs    int    `json:"usable_cpus"`  // CPUs this process may run on (affinity)
	CPUGovernor   string `json:"cpu_governor"` // cpufreq governor of CPU 0; "" without cpufreq
	// Sysctls holds the value of each of Sysctls that exists on this
	// machine, keyed by its full name; tabs and runs of spaces become one
	// space ("4096 131072 6291456").
	Sysctls   map[string]string `json:"sysctls"`
	Netscript string            `json:"netscript"` // netscript's version
	Commit    string            `json:"commit"`    // the commit netscript was built from
	Go        string            `json:"go"`        // the Go release that built it
	// Cgo says the binary was built with cgo: its threads start through
	// the C library, and glibc 2.35 and later register rseq on each, which
	// the kernel updates after every context switch. On the machine of the
	// README's benchmarks that cost a round trip about 1 % per end, so two
	// builds of one commit can differ by that much. `make build` is static.
	Cgo bool `json:"cgo"`
}

// Sysctl is a kernel setting that changes what a network benchmark
// measures.
type Sysctl struct {
	Name string // "net.ipv4.tcp_fastopen"
	Why  string // what it changes
}

// Sysctls lists the settings Collect reads, in the order a person would
// look at them.
var Sysctls = []Sysctl{
	{"net.ipv4.tcp_congestion_control", "congestion control algorithm of new connections"},
	{"net.core.default_qdisc", "queueing discipline of new interfaces (fq paces, pfifo_fast does not)"},
	{"net.ipv4.tcp_fastopen", "TCP Fast Open: 1 client, 2 server, 3 both (a Fast Open test needs both ends' bits)"},
	{"net.ipv4.tcp_rmem", "TCP receive buffer min, default, max (autotuning range)"},
	{"net.ipv4.tcp_wmem", "TCP send buffer min, default, max (autotuning range)"},
	{"net.core.rmem_max", "largest receive buffer SO_RCVBUF may ask for"},
	{"net.core.wmem_max", "largest send buffer SO_SNDBUF may ask for"},
	{"net.core.rmem_default", "receive buffer of a new non-TCP socket (UDP)"},
	{"net.core.wmem_default", "send buffer of a new non-TCP socket (UDP)"},
	{"net.ipv4.tcp_tw_reuse", "reuse of TIME_WAIT ports for new connections (TCP_CRR)"},
	{"net.ipv4.ip_local_port_range", "ephemeral ports a client may use (TCP_CRR runs out of them)"},
	{"net.ipv4.tcp_max_tw_buckets", "most TIME_WAIT sockets kept before they are dropped early"},
	{"net.ipv4.tcp_fin_timeout", "how long an orphaned connection stays in FIN_WAIT_2"},
	{"net.ipv4.tcp_timestamps", "TCP timestamps option (12 bytes per segment, RTT samples)"},
	{"net.ipv4.tcp_sack", "selective acknowledgements"},
	{"net.ipv4.tcp_window_scaling", "window scaling (windows above 64 KiB)"},
	{"net.ipv4.tcp_ecn", "explicit congestion notification"},
	{"net.ipv4.tcp_no_metrics_save", "whether a closed connection's metrics seed the next one to the host"},
	{"net.ipv4.tcp_slow_start_after_idle", "whether an idle connection restarts slow start"},
	{"net.ipv4.tcp_autocorking", "coalescing of small writes while the device queue is busy"},
	{"net.ipv4.tcp_mtu_probing", "packetization-layer path MTU discovery"},
	{"net.core.somaxconn", "cap on a listener's accept queue (TCP_CRR server)"},
	{"net.ipv4.tcp_max_syn_backlog", "half-open connections a listener keeps"},
	{"net.core.netdev_max_backlog", "packets queued per CPU between driver and stack"},
	{"net.core.busy_poll", "microseconds poll/select busy-wait on a device queue"},
	{"net.core.busy_read", "microseconds a blocking read busy-waits on a device queue"},
}

// Collect describes this machine and this build of netscript (version and
// commit as the build stamped them). What cannot be read is left empty.
func Collect(version, commit string) Info {
	info := collectFrom(os.DirFS("/"))
	info.Hostname, _ = os.Hostname()
	info.Kernel, info.KernelVersion = uname()
	info.UsableCPUs = runtime.NumCPU()
	info.Netscript, info.Commit = version, commit
	return info
}

// collectFrom reads what a file system rooted at / holds (/proc and /sys);
// tests give it a fake one.
func collectFrom(fsys fs.FS) Info {
	info := Info{OS: runtime.GOOS, Arch: runtime.GOARCH, Go: runtime.Version(), Cgo: Cgo(), Sysctls: map[string]string{}}
	if b, err := fs.ReadFile(fsys, "proc/cpuinfo"); err == nil {
		info.CPUModel = cpuModel(b)
	}
	if b, err := fs.ReadFile(fsys, "sys/devices/system/cpu/online"); err == nil {
		info.CPUs = countCPUList(strings.TrimSpace(string(b)))
	}
	if b, err := fs.ReadFile(fsys, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		info.CPUGovernor = strings.TrimSpace(string(b))
	}
	for _, s := range Sysctls {
		b, err := fs.ReadFile(fsys, "proc/sys/"+strings.ReplaceAll(s.Name, ".", "/"))
		if err == nil {
			info.Sysctls[s.Name] = strings.Join(strings.Fields(string(b)), " ")
		}
	}
	return info
}

// cpuModel finds the processor's name in /proc/cpuinfo: "model name" on
// x86, "cpu model" on MIPS, "Hardware" or "Processor" on older ARM kernels,
// "uarch" or "isa" on RISC-V.
func cpuModel(cpuinfo []byte) string {
	found := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := found[k]; !seen && v != "" {
			found[k] = v
		}
	}
	for _, k := range []string{"model name", "cpu model", "Processor", "Hardware", "uarch", "isa", "cpu"} {
		if v, ok := found[k]; ok {
			return v
		}
	}
	return ""
}

// countCPUList counts the CPUs of a kernel CPU list such as "0-3,8,10-11";
// 0 if it does not parse.
func countCPUList(s string) int {
	if s == "" {
		return 0
	}
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return 0
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}

// String is a one-line summary: kernel, CPUs, congestion control and the
// build, as a record's header shows it.
func (i Info) String() string {
	var parts []string
	kernel := strings.TrimSpace(i.OS + " " + i.Kernel + " " + i.Arch)
	parts = append(parts, kernel)
	cpu := i.CPUModel
	if cpu == "" {
		cpu = "CPU"
	}
	if i.CPUs > 0 {
		cpu = strconv.Itoa(i.CPUs) + " x " + cpu
	}
	parts = append(parts, cpu)
	if cc := i.Sysctls["net.ipv4.tcp_congestion_control"]; cc != "" {
		parts = append(parts, cc)
	}
	build := "netscript " + i.Netscript
	if i.Commit != "" {
		build += " (" + i.Commit + ")"
	}
	if i.Cgo {
		build += " cgo"
	}
	parts = append(parts, strings.TrimSpace(build), i.Go)
	return strings.Join(parts, ", ")
}

// Cgo reports whether this binary was built with cgo (CGO_ENABLED=1), as
// its build information records it.
func Cgo() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" {
			return s.Value == "1"
		}
	}
	return false
}

// FastOpen returns net.ipv4.tcp_fastopen of this process's network
// namespace (the bits that let clients and servers use TCP Fast Open), or
// -1 if it cannot be read. Both ends report it, so a Fast Open test can say
// which side's setting kept the cookie from being used.
func FastOpen() int { return fastOpenFrom(os.DirFS("/")) }

func fastOpenFrom(fsys fs.FS) int {
	b, err := fs.ReadFile(fsys, "proc/sys/net/ipv4/tcp_fastopen")
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 0, 32)
	if err != nil || v < 0 {
		return -1
	}
	return int(v)
}
