package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"netscript/engine/spec"
)

func TestCheckTest(t *testing.T) {
	p := &Permissions{}
	p.AllowHost("198.18.0.2:12866")
	p.AllowArgHosts(map[string]string{"H": "[2001:2::1]:5000", "N": "10", "LAB": "lab1.example"})
	asked := 0
	for _, c := range []struct {
		name     string
		sp       spec.Spec
		embedded bool
		ask      bool // the answer; nil Ask when false and noAsk
		want     string
	}{
		{"embedded", spec.Spec{}, true, false, ""},
		{"named with another port", spec.Spec{Host: "198.18.0.2", Port: 5001}, false, false, ""},
		{"an argument's v6 address", spec.Spec{Host: "2001:2::1"}, false, false, ""},
		{"an argument's name, any case", spec.Spec{Host: "LAB1.example"}, false, false, ""},
		{"not named", spec.Spec{Host: "198.18.0.9", NoControl: true}, false, false, "not allowed to reach 198.18.0.9; run with --allow-net 198.18.0.9"},
		{"a daemon not named", spec.Spec{Host: "198.18.0.2", Client: "198.18.0.3"}, false, false, "--allow-net 198.18.0.3"},
		{"a yes", spec.Spec{Host: "198.18.0.7"}, false, true, ""},
		{"once allowed, not asked again", spec.Spec{Host: "198.18.0.7"}, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p.Ask = func(host, what string) bool {
				asked++
				if !strings.Contains(what, host) && !strings.Contains(what, c.sp.Host) {
					t.Errorf("the question %q names neither %s nor the test's host", what, host)
				}
				return c.ask
			}
			err := p.CheckTest(&c.sp, c.embedded)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	if asked != 3 {
		t.Errorf("asked %d times, want 3 (two refusals, one yes)", asked)
	}
	var none *Permissions
	if err := none.CheckTest(&spec.Spec{Host: "198.18.0.9"}, false); err != nil {
		t.Errorf("nil permissions (the person's own typing) refused: %v", err)
	}
}

// TestCheckHost: a builtin that reaches a host itself (fleet's probes and
// discovery) is allowed, asked or refused as a test's host is, the
// refusal naming the builtin; nil permissions allow everything.
func TestCheckHost(t *testing.T) {
	if err := (*Permissions)(nil).CheckHost("fleet.probe", "198.18.0.9:12866", "probe"); err != nil {
		t.Errorf("nil permissions: %v", err)
	}
	p := &Permissions{}
	p.AllowHost("198.18.0.2")
	if err := p.CheckHost("fleet.probe", "198.18.0.2:12866", "probe"); err != nil {
		t.Errorf("an allowed host with a port: %v", err)
	}
	err := p.CheckHost("fleet.dns", "Agents.Example.", "look up")
	var nr *NetRefusedError
	if !errors.As(err, &nr) || err.Error() != "fleet.dns: not allowed to reach agents.example; run with --allow-net agents.example (or --allow-net for every host) to allow it" {
		t.Errorf("a name not allowed: %v", err)
	}
	var question string
	p.Ask = func(host, what string) bool { question = host + " | " + what; return true }
	if err := p.CheckHost("fleet.kubernetes", "198.18.0.5:6443", "read the agents from 198.18.0.5:6443"); err != nil || question != "198.18.0.5 | read the agents from 198.18.0.5:6443" {
		t.Errorf("a yes: %v, asked %q", err, question)
	}
	p.Ask = nil
	if err := p.CheckHost("fleet.probe", "198.18.0.5:12866", "probe"); err != nil {
		t.Errorf("a host allowed by a yes: %v", err)
	}
}

func TestOpenModule(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	os.MkdirAll(filepath.Join(tree, "lib"), 0o755)
	os.WriteFile(filepath.Join(root, "secret"), []byte("k"), 0o644)
	os.WriteFile(filepath.Join(tree, "lib", "ok.star"), []byte("x = 1"), 0o644)
	os.Symlink("../../secret", filepath.Join(tree, "lib", "out.star"))
	os.Symlink("ok.star", filepath.Join(tree, "lib", "in.star"))
	p := &Permissions{Root: tree}
	for _, c := range []struct {
		path, want string
	}{
		{filepath.Join(tree, "lib", "ok.star"), ""},
		{filepath.Join(tree, "lib", "in.star"), ""},
		{filepath.Join(tree, "lib", "..", "lib", "ok.star"), ""},
		{filepath.Join(tree, "..", "secret"), "--allow-read " + root},
		{filepath.Join(tree, "lib", "out.star"), "symbolic link leads out"},
		{"/etc/passwd", "--allow-read /etc"},
	} {
		f, err := p.OpenModule(c.path)
		if f != nil {
			f.Close()
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.path, err, c.want)
		}
	}
	p.ReadDirs = []string{root}
	if f, err := p.OpenModule(filepath.Join(tree, "..", "secret")); err != nil {
		t.Errorf("--allow-read %s: %v", root, err)
	} else {
		f.Close()
	}
}
