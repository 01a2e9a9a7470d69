package plot

import (
	"fmt"
	"os"
	"path/filepath"
)

// Pending is a file being written in place of path: a temporary file in
// path's directory that Commit renames over path, so a drawing that fails
// half-way leaves the picture already at path as it was.
type Pending struct {
	*os.File
	path string
}

// NewPending opens a temporary file beside path, so a directory that
// cannot be written is said before anything is drawn.
func NewPending(path string) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		if pe, isPE := err.(*os.PathError); isPE {
			err = pe.Err
		}
		return nil, fmt.Errorf("file %q cannot be written: %w", path, err)
	}
	return &Pending{File: f, path: path}, nil
}

// Commit closes the file and puts it at its path.
func (p *Pending) Commit() error {
	if err := p.File.Close(); err != nil {
		os.Remove(p.File.Name())
		return fmt.Errorf("file %q: %v", p.path, err)
	}
	if err := os.Rename(p.File.Name(), p.path); err != nil {
		os.Remove(p.File.Name())
		return fmt.Errorf("file %q: %v", p.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file; path is left untouched.
func (p *Pending) Abort() {
	p.File.Close()
	os.Remove(p.File.Name())
}
