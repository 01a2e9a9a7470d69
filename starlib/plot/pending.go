package plot

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"netscript/session"
)

// Pending is a file being written in place of path: a temporary file in
// path's directory that Commit renames over path, so a drawing that fails
// half-way leaves the picture already at path as it was. The directory is
// held open from the start, so what is renamed into is the directory the
// permissions allowed, whatever a link made of its name meanwhile.
type Pending struct {
	*os.File
	dir       *os.File
	tmp, name string
	path      string
}

// NewPending opens a temporary file beside path, so a directory that
// cannot be written is said before anything is drawn. perms decide where
// path may be (nil: anywhere, for a path the person typed); the file is
// created with mode 0666 less the umask, and never through a link.
func NewPending(perms *session.Permissions, path string) (*Pending, error) {
	dir, name, err := perms.CreateDir(path)
	if err != nil {
		return nil, err
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := "." + name + "." + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(int(dir.Fd()), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o666)
	if err != nil {
		dir.Close()
		return nil, fmt.Errorf("file %q cannot be written: %w", path, err)
	}
	return &Pending{File: os.NewFile(uintptr(fd), path), dir: dir, tmp: tmp, name: name, path: path}, nil
}

// Commit closes the file and puts it at its path; a link at the path is
// replaced, not followed.
func (p *Pending) Commit() error {
	defer p.dir.Close()
	if err := p.File.Close(); err != nil {
		unix.Unlinkat(int(p.dir.Fd()), p.tmp, 0)
		return fmt.Errorf("file %q: %v", p.path, err)
	}
	if err := unix.Renameat(int(p.dir.Fd()), p.tmp, int(p.dir.Fd()), p.name); err != nil {
		unix.Unlinkat(int(p.dir.Fd()), p.tmp, 0)
		return fmt.Errorf("file %q: %v", p.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file; path is left untouched.
func (p *Pending) Abort() {
	p.File.Close()
	unix.Unlinkat(int(p.dir.Fd()), p.tmp, 0)
	p.dir.Close()
}
