package docs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"netscript/engine/childproc"
)

// fileLimit bounds the examples of one file; they are meant to take
// seconds (duration=1, transactions=N).
const fileLimit = 4 * time.Minute

// manual lists the files whose examples run, in the order a newcomer
// reads them: README.md, then docs/*.md by name.
func manual(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	sort.Strings(files)
	return append([]string{"../README.md"}, files...)
}

// shownName is how a file is named in messages: from the top of the module.
func shownName(path string) string {
	if p, ok := strings.CutPrefix(path, "../"); ok {
		return p
	}
	return "docs/" + path
}

// isolation returns the command prefix that runs a file's examples in a
// network namespace of their own, so their fixed ports (12866, 12345)
// meet nothing else on the machine, and in a process namespace of their
// own whose first process is the bash session: when it ends, the kernel
// kills every process left in the namespace (a daemon an example left
// running). unshare's --kill-child ends the session when unshare is
// killed, and childproc has unshare killed when this test binary dies.
// "" when this machine cannot make them.
func isolation() ([]string, string) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return nil, "no unshare(1)"
	}
	for _, prefix := range [][]string{
		{unshare, "--net", "--pid", "--kill-child"},                              // root
		{unshare, "--user", "--map-root-user", "--net", "--pid", "--kill-child"}, // anyone, where user namespaces are allowed
	} {
		probe := exec.Command(prefix[0], append(prefix[1:], "ip", "link", "set", "lo", "up")...)
		if probe.Run() == nil {
			return prefix, ""
		}
	}
	return nil, "unshare --net --pid failed (not root, and no user namespaces)"
}

// TestExamples runs every example of README.md and docs/*.md, file by file
// and in order, as written: shell blocks that call netscript run as one
// bash session per file (so a daemon one block starts is still there in
// the next, as in a reader's terminal), and each Starlark block runs as a
// script, `bin/netscript FILE.star`, in the same session. A block whose
// first line is "# not run: REASON" is left out; "# fails: REASON" must
// end with an error. The session runs in a directory of its own holding
// bin/netscript (built as make build builds it) and scripts/, with HOME
// there too, inside a network namespace of its own with only loopback.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example of the manual (about a minute)")
	}
	prefix, why := isolation()
	if prefix == nil {
		t.Skipf("the examples listen on fixed ports and need a network namespace of their own: %s", why)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "netscript"), "../cmd/netscript")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	scripts, err := filepath.Abs("../scripts")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range manual(t) {
		name := shownName(path)
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := Blocks(name, string(text))
			if err != nil {
				t.Fatal(err)
			}
			runFile(t, prefix, filepath.Join(bin, "netscript"), scripts, blocks)
		})
	}
}

// runFile runs the examples among blocks in one bash session.
func runFile(t *testing.T, prefix []string, netscript, scripts string, blocks []Block) {
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(netscript, filepath.Join(work, "bin", "netscript")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(scripts, filepath.Join(work, "scripts")); err != nil {
		t.Fatal(err)
	}
	var sh strings.Builder
	sh.WriteString("set -eo pipefail\nip link set lo up\n")
	sh.WriteString(`trap 'echo "docs: this command failed (exit status $?): $BASH_COMMAND"' ERR` + "\n")
	ran := 0
	for i, b := range blocks {
		where := fmt.Sprintf("%s:%d", b.File, b.Line)
		switch b.Kind {
		case KindOther:
			if b.Lang == "sh" || b.Lang == "python" {
				t.Logf("%s: not run: %s", where, b.Skip)
			}
			continue
		case KindShell:
			fmt.Fprintf(&sh, "echo '@@block %d'\n%s\n", i, b.Text)
		case KindScript:
			file := fmt.Sprintf("example-%d.star", b.Line)
			if err := os.WriteFile(filepath.Join(work, file), []byte(b.Text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if b.Fails {
				fmt.Fprintf(&sh, "echo '@@block %d'\nif bin/netscript %s; then echo 'docs: the example ran, but its first line says it fails'; false; fi\n", i, file)
			} else {
				fmt.Fprintf(&sh, "echo '@@block %d'\nbin/netscript %s\n", i, file)
			}
		}
		ran++
	}
	if ran == 0 {
		t.Skip("no examples to run")
	}
	sh.WriteString("echo '@@done'\n")

	ctx, cancel := context.WithTimeout(context.Background(), fileLimit)
	defer cancel()
	var out bytes.Buffer
	start := time.Now()
	cmd, err := startSession(ctx, prefix, work, sh.String(), &out)
	if err == nil {
		err = cmd.Wait()
	}
	// Daemons the examples left running (and their embedded servers) went
	// with the process namespace when the session ended (unshare
	// --kill-child); the session, reaped by Wait, is not signalled again.
	t.Logf("ran %d examples in %.1f s", ran, time.Since(start).Seconds())
	text := out.String()
	if err == nil && strings.HasSuffix(strings.TrimSpace(text), "@@done") {
		t.Logf("what they printed:\n%s", text)
		return
	}
	// The failing block is the last one that began.
	last, at := -1, 0
	for _, l := range strings.Split(text, "\n") {
		var n int
		if _, e := fmt.Sscanf(l, "@@block %d", &n); e == nil {
			last = n
		}
	}
	if last >= 0 {
		at = strings.LastIndex(text, fmt.Sprintf("@@block %d\n", last))
		at += len(fmt.Sprintf("@@block %d\n", last))
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (still running after %v)", err, fileLimit)
	}
	if last < 0 {
		t.Fatalf("the examples did not start: %v\n%s", err, text)
	}
	b := blocks[last]
	t.Fatalf("%s:%d: this example failed (%v):\n%s\n\nits output:\n%s\nFix the example, or, if it cannot run here (a lab host, no end), begin it with a line %q.",
		b.File, b.Line, err, b.Text, text[at:], markNotRun+" REASON")
}

// startSession starts script as a bash session isolated by prefix (see
// isolation), in dir, with its output going to out, and returns it
// started. When ctx is done, the session and all it started are killed;
// so are they if this test binary dies first.
func startSession(ctx context.Context, prefix []string, dir, script string, out io.Writer) (*exec.Cmd, error) {
	args := append(append([]string{}, prefix[1:]...), "bash", "-c", script)
	cmd := exec.CommandContext(ctx, prefix[0], args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "TERM=dumb"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stdout, cmd.Stderr = out, out
	if err := childproc.Start(cmd); err != nil {
		return nil, fmt.Errorf("start the examples' session (%s): %w", strings.Join(prefix, " "), err)
	}
	return cmd, nil
}
