package netns

import (
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, s := range []string{"a", "client", "server-2", "mesh_a", "A9", strings.Repeat("x", 32)} {
		if err := checkName(s); err != nil {
			t.Errorf("checkName(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "-a", "_a", "a b", "a/b", "a.b", "../x", "é", strings.Repeat("x", 33)} {
		if err := checkName(s); err == nil {
			t.Errorf("checkName(%q) accepted it", s)
		}
	}
}

func TestOwnerPid(t *testing.T) {
	tests := []struct {
		in  string
		pid int
		ok  bool
	}{
		{"ns-4242-client", 4242, true},
		{"ns-1-a-2", 1, true},
		{"ns-4242-", 0, false},
		{"ns-4242", 0, false},
		{"ns--client", 0, false},
		{"ns-0-client", 0, false},
		{"ns-042-client", 0, false},
		{"ns-+42-client", 0, false},
		{"ns-x42-client", 0, false},
		{"ns-99999999999999999999-a", 0, false},
		{"other-42-client", 0, false},
		{"42-client", 0, false},
	}
	for _, tt := range tests {
		pid, ok := ownerPid(tt.in)
		if pid != tt.pid || ok != tt.ok {
			t.Errorf("ownerPid(%q) = %d, %v; want %d, %v", tt.in, pid, ok, tt.pid, tt.ok)
		}
	}
}

func TestSysctlPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"net.ipv4.tcp_fastopen", "/proc/sys/net/ipv4/tcp_fastopen"},
		{"net.ipv6.conf.all.disable_ipv6", "/proc/sys/net/ipv6/conf/all/disable_ipv6"},
		{"net/ipv4/conf/veth0.100/forwarding", "/proc/sys/net/ipv4/conf/veth0.100/forwarding"},
		{"/proc/sys/net/core/somaxconn", "/proc/sys/net/core/somaxconn"},
		{"kernel.hostname", ""},
		{"vm.swappiness", ""},
		{"net", ""},
		{"net.", ""},
		{"net..ipv4", ""},
		{"net/../kernel/hostname", ""},
		{"net/ipv4/../../kernel/x", ""},
		{"/net/ipv4/tcp_fastopen", ""},
		{"netfilter.x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := sysctlPath(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("sysctlPath(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("sysctlPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSameSysctl(t *testing.T) {
	tests := []struct {
		want, got string
		same      bool
	}{
		{"3", "3", true},
		{"3", "3\n", true},
		{"03", "3", true},
		{"0x10", "16", true},
		{"1024 65535", "1024\t65535", true},
		{"cubic", "cubic", true},
		{"3", "1", false},
		{"1024 65535", "1024", false},
		{"bbr", "cubic", false},
		{"", "", true},
	}
	for _, tt := range tests {
		if got := sameSysctl(tt.want, tt.got); got != tt.same {
			t.Errorf("sameSysctl(%q, %q) = %v, want %v", tt.want, tt.got, got, tt.same)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	var b tailBuffer
	b.Write([]byte("hello "))
	b.Write([]byte("world"))
	if got := b.String(); got != "hello world" {
		t.Fatalf("got %q", got)
	}
	chunk := []byte(strings.Repeat("x", 4096))
	for i := 0; i < 3*maxOutput/len(chunk); i++ {
		b.Write(chunk)
	}
	b.Write([]byte("END"))
	got := b.String()
	if !strings.HasPrefix(got, "[... ") || !strings.HasSuffix(got, "xxxEND") || len(got) > 2*maxOutput+100 {
		t.Fatalf("after 3 MiB: %d bytes, starting %q", len(got), got[:40])
	}
}
