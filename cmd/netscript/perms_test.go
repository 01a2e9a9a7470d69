package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile corpus (testdata/hostile): one script per attack of issue
// 28, run as a person runs a script from a mailing list, with no flag.
// Each is refused or stopped with one line naming the permission or the
// limit, quotes no byte of a file outside its tree, and changes no file
// outside the trees it was allowed.

const secretValue = "sekret-3f9a"

// hostileTree lays out T/outside (a secret, a file that does not parse, a
// picture) and T/tree (the corpus, with its links out), and returns T.
func hostileTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	out, tree := filepath.Join(root, "outside"), filepath.Join(root, "tree")
	if err := os.CopyFS(tree, os.DirFS("testdata/hostile")); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(out, 0o755))
	must(os.WriteFile(filepath.Join(out, "secret.py"), []byte("API_KEY = \""+secretValue+"\"\n"), 0o644))
	must(os.WriteFile(filepath.Join(out, "shadow"), []byte("root:$6$"+secretValue+":19000:0:99999:7:::\n"), 0o644))
	must(os.WriteFile(filepath.Join(out, "victim.svg"), []byte("<svg>the thesis</svg>\n"), 0o644))
	must(os.Symlink("../../outside/secret.py", filepath.Join(tree, "lib", "link.star")))
	must(os.Symlink("../outside", filepath.Join(tree, "outlink")))
	must(os.Symlink("../outside/victim.svg", filepath.Join(tree, "planted.svg")))
	return root
}

// hashTree is every file under dir with its content's sha256 and mode,
// links as their targets.
func hashTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[p] = "-> " + l
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			m[p] = info.Mode().String() + " " + hex.EncodeToString(s[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// inTree runs the binary in dir with args and stdin closed (no terminal).
func inTree(t *testing.T, dir string, args ...string) ran {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-q"}, args...)...)
	cmd.Dir, cmd.Env = dir, cleanEnv()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := ran{stdout: o.String(), stderr: e.String()}
	if ctx.Err() != nil {
		t.Fatalf("netscript %q hung; stderr so far:\n%.2000s", args, r.stderr)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHostileScripts(t *testing.T) {
	root := hostileTree(t)
	tree, outside := filepath.Join(root, "tree"), filepath.Join(root, "outside")
	// The 50 MB literal is made here, not kept in git.
	big := "x = \"" + strings.Repeat("a", 50<<20) + "\"\n"
	if err := os.WriteFile(filepath.Join(tree, "big.star"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, outside)
	for _, c := range []struct {
		script string
		flags  []string
		code   int
		want   []string
	}{
		{"load_absolute.star", nil, exitScriptError, []string{"cannot load /etc/passwd", "--allow-read /etc"}},
		{"load_dotdot.star", nil, exitScriptError, []string{"outside the script's directory", "--allow-read " + outside}},
		{"load_symlink.star", nil, exitScriptError, []string{"symbolic link leads out", "--allow-read"}},
		{"load_nested.star", nil, exitScriptError, []string{"cannot load lib/nested.star", "--allow-read " + outside}},
		{"load_unparsable.star", nil, exitScriptError, []string{"--allow-read " + outside}},
		{"plot_dotdot.star", nil, exitScriptError, []string{"outside the working directory", "--allow-write " + outside}},
		{"plot_symlink_dir.star", nil, exitScriptError, []string{"symbolic link leads out", "--allow-write"}},
		{"plot_huge.star", nil, exitScriptError, []string{"100000 x 100000", "--max-picture-pixels"}},
		{"loop.star", []string{"--max-steps", "100000"}, exitScriptError, []string{"more than 100000 Starlark steps", "--max-steps"}},
		{"memory.star", []string{"--max-memory", "100"}, exitScriptError, []string{"more than 100 MB", "--max-memory"}},
		{"big.star", nil, exitUsage, []string{"larger than 1024 KB", "--max-script-size"}},
		{"flood.star", nil, exitScriptError, []string{"not allowed to reach 198.18.77.2", "--allow-net 198.18.77.2"}},
		{"mesh.star", []string{"--allow-net=198.18.77.2"}, exitScriptError, []string{"not allowed to reach 198.18.77.3", "--allow-net 198.18.77.3"}},
	} {
		t.Run(c.script, func(t *testing.T) {
			r := inTree(t, tree, append(c.flags, c.script)...)
			oneLine(t, r, c.code, c.want...)
			if strings.Contains(r.stdout+r.stderr, secretValue) {
				t.Errorf("a secret from outside the tree was shown:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
	t.Run("recursion.star", func(t *testing.T) {
		r := inTree(t, tree, "recursion.star")
		if r.code != exitScriptError || !strings.Contains(r.stderr, "stack overflow") {
			t.Errorf("exit %d, want %d and a stack overflow:\n%.2000s", r.code, exitScriptError, r.stderr)
		}
		if n := strings.Count(r.stderr, "\n"); n > 10 {
			t.Errorf("the traceback of a deep recursion is %d lines, want its repeats folded:\n%.2000s", n, r.stderr)
		}
	})
	t.Run("plot_planted.star", func(t *testing.T) {
		// Allowed (the name is in the tree), but the link is replaced by the
		// picture, never written through.
		r := inTree(t, tree, "plot_planted.star")
		if r.code != exitOK {
			t.Fatalf("exit %d:\n%s", r.code, r.stderr)
		}
		fi, err := os.Lstat(filepath.Join(tree, "planted.svg"))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("planted.svg is %v (%v), want the picture as a file of its own", fi.Mode(), err)
		}
		mask := syscall.Umask(0)
		syscall.Umask(mask)
		if want := fs.FileMode(0o666 &^ mask); fi.Mode().Perm() != want {
			t.Errorf("picture mode %v, want %v (0666 less the umask)", fi.Mode().Perm(), want)
		}
	})
	if after := hashTree(t, outside); !mapsEqual(before, after) {
		t.Errorf("files outside the tree changed:\nbefore %v\nafter  %v", before, after)
	}
}

// TestHostileScriptsAllowed: with the permission on the command line, each
// legitimate form works.
func TestHostileScriptsAllowed(t *testing.T) {
	root := hostileTree(t)
	tree, outside := filepath.Join(root, "tree"), filepath.Join(root, "outside")
	r := inTree(t, tree, "--allow-read", outside, "load_dotdot.star")
	if r.code != exitOK || strings.TrimSpace(r.stdout) != secretValue {
		t.Errorf("--allow-read %s: exit %d, stdout %q, stderr:\n%s", outside, r.code, r.stdout, r.stderr)
	}
	r = inTree(t, tree, "--allow-write", outside, "plot_dotdot.star")
	if r.code != exitOK {
		t.Errorf("--allow-write %s: exit %d:\n%s", outside, r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim.svg")); !strings.Contains(string(b), "<svg") || strings.Contains(string(b), "the thesis") {
		t.Errorf("--allow-write: the picture was not written in %s", outside)
	}
	r = inTree(t, tree, "--max-steps", "100000000000", "-c", "print(len([i for i in range(1000)]))")
	if r.code != exitOK || strings.TrimSpace(r.stdout) != "1000" {
		t.Errorf("-c with a step budget: exit %d, %q\n%s", r.code, r.stdout, r.stderr)
	}
	// -c is the person's own typing: load() of any file they name.
	r = inTree(t, tree, "-c", `load("`+filepath.Join(outside, "secret.py")+`", "API_KEY"); print(API_KEY)`)
	if r.code != exitOK || strings.TrimSpace(r.stdout) != secretValue {
		t.Errorf("-c load of an absolute path: exit %d, %q\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestReplayAsks: a record's script runs only with --yes when there is no
// terminal, with a script file's permissions, and show escapes the
// terminal sequences a record carries.
func TestReplayAsks(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.json")
	script := filepath.Join(dir, "ok.star")
	if err := os.WriteFile(script, []byte("print(1 + 1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := inTree(t, dir, "--record", rec, script); r.code != exitOK {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	r := inTree(t, dir, "replay", rec)
	oneLine(t, r, exitUsage, "with no terminal to ask on, run it with --yes")
	if strings.Contains(r.stdout, "2") {
		t.Errorf("the script ran without --yes: %q", r.stdout)
	}
	if r = inTree(t, dir, "--yes", "replay", rec); r.code != exitOK || !strings.HasPrefix(r.stdout, "2\n") {
		t.Errorf("--yes replay: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}

	// A record whose script floods an address and whose name retitles
	// the terminal.
	evil := rewriteRecord(t, rec, "/etc/\x1b]0;pwned\x07x.star",
		"udp_stream(host = \"198.18.77.2\", data_port = 9, control = False, duration = 2)\n")
	r = inTree(t, dir, "--yes", "replay", evil)
	if r.code != exitScriptError || !strings.Contains(r.stderr, "--allow-net 198.18.77.2") {
		t.Errorf("a replayed flood: exit %d\n%s", r.code, r.stderr)
	}
	r = inTree(t, dir, "show", evil)
	if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") || !strings.Contains(r.stdout, `\x1b]0;pwned\a`) {
		t.Errorf("show printed a record's control characters:\n%q", r.stdout)
	}
}

// rewriteRecord writes a copy of the record rec with the script's name and
// text replaced (and its digest to match), as a hostile author would.
func rewriteRecord(t *testing.T, rec, name, text string) string {
	t.Helper()
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	sc := m["script"].(map[string]any)
	sum := sha256.Sum256([]byte(text))
	sc["name"], sc["text"], sc["sha256"] = name, text, hex.EncodeToString(sum[:])
	out, _ := json.Marshal(m)
	p := rec + ".evil.json"
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
