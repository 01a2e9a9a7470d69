package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// beneath opens rel beneath the directory root with openat2 and
// RESOLVE_BENEATH: a "..", an absolute symbolic link or any link that
// leaves root fails with EXDEV, so what the kernel resolves is what was
// allowed, not what a string check thought it was.
func beneath(root, rel string, flags int, mode uint32) (*os.File, error) {
	dir, err := os.OpenFile(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	fd, err := unix.Openat2(int(dir.Fd()), rel, &unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Mode:    uint64(mode),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(root, rel)), nil
}

// within returns path relative to the first of roots that holds it by
// name, and that root; ok is false when none does.
func within(path string, roots []string) (root, rel string, ok bool) {
	for _, r := range roots {
		ra, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(ra, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		return ra, rel, true
	}
	return "", "", false
}

// ReadRoots are the directories load() may read beneath: the started
// script's own (Root) and each --allow-read DIR.
func (p *Permissions) readRoots() []string {
	if p.Root == "" {
		return p.ReadDirs
	}
	return append([]string{p.Root}, p.ReadDirs...)
}

// OpenModule opens the module a load() names, path already joined to the
// loading file's directory. With permissions set it opens only beneath
// the started script's directory or an --allow-read DIR, through no
// symbolic link out of them; a refusal is one line naming the flag and
// quotes nothing of the file.
func (p *Permissions) OpenModule(path string) (*os.File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return os.Open(abs)
	}
	dir := filepath.Dir(abs)
	root, rel, ok := within(abs, p.readRoots())
	if !ok {
		return nil, fmt.Errorf("outside the script's directory; run with --allow-read %s to allow it", dir)
	}
	f, err := beneath(root, rel, unix.O_RDONLY, 0)
	if errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("a symbolic link leads out of %s; run with --allow-read DIR (where it leads) to allow it", root)
	}
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, pathErr(err))
	}
	return f, nil
}

// CreateDir opens the directory a file the script names (plot's file=)
// is to be written in, and returns it with the file's own name in it. With
// permissions set the directory must lie beneath the working directory or
// an --allow-write DIR, reached through no symbolic link out of them. The
// writer creates the file in dir with O_NOFOLLOW and mode 0666, which the
// kernel trims by the umask.
func (p *Permissions) CreateDir(path string) (dir *os.File, name string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	parent, name := filepath.Dir(abs), filepath.Base(abs)
	if p == nil {
		d, err := os.OpenFile(parent, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, "", fmt.Errorf("file %q cannot be written: %w", path, pathErr(err))
		}
		return d, name, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	root, rel, ok := within(parent, append([]string{wd}, p.WriteDirs...))
	if !ok {
		return nil, "", fmt.Errorf("file %q: outside the working directory; run with --allow-write %s to allow it", path, parent)
	}
	d, err := beneath(root, rel, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	if errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ELOOP) {
		return nil, "", fmt.Errorf("file %q: a symbolic link leads out of %s; run with --allow-write DIR (where it leads) to allow it", path, root)
	}
	if err != nil {
		return nil, "", fmt.Errorf("file %q cannot be written: %w", path, pathErr(err))
	}
	return d, name, nil
}

// CreateNamed creates (or truncates) a file the person named on the
// command line (--record, --json-lines, report -o): allowed as given, but
// never through a symbolic link at its last element (a planted or
// dangling link), and with mode 0666 trimmed by the umask.
func CreateNamed(path string, trunc bool) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | unix.O_NOFOLLOW
	if trunc {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o666)
	if errors.Is(err, unix.ELOOP) {
		return nil, errors.New("is a symbolic link; name the file it leads to instead")
	}
	return f, err
}

// pathErr drops the path an *os.PathError repeats.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
