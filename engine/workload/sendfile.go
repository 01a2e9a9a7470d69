package workload

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// FileSource is what TCP_SENDFILE sends from: a file, sent round and round
// with sendfile(2), each call from where the last one ended and from the
// start again once the rest is shorter than a send. The Stream loop sends
// from it instead of its buffer (Stream.File).
type FileSource struct {
	f    *os.File
	fd   int
	size int64
	off  int64
}

// OpenFileSource opens path to send from it.
func OpenFileSource(path string) (*FileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && st.Size() == 0 {
		err = fmt.Errorf("%s is empty", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &FileSource{f: f, fd: int(f.Fd()), size: st.Size()}, nil
}

// TempFileSource makes a file of size bytes in dir (the system's
// temporary directory if ""), and removes its name at once: the file lives
// as long as the source holds it open and is gone once it is closed, even
// if the process is killed first.
func TempFileSource(dir string, size int64) (*FileSource, error) {
	f, err := os.CreateTemp(dir, "netscript-sendfile-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	buf := make([]byte, min(size, 1<<20))
	for i := range buf {
		buf[i] = byte(i)
	}
	for left := size; left > 0 && err == nil; {
		var n int
		n, err = f.Write(buf[:min(left, int64(len(buf)))])
		left -= int64(n)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("a temporary file of %d bytes to send: %w", size, err)
	}
	return &FileSource{f: f, fd: int(f.Fd()), size: size}, nil
}

// Size is the file's size in bytes.
func (s *FileSource) Size() int64 { return s.size }

// send sends up to n bytes of the file to the socket fd: from where the
// last call ended, or from the start when less than n bytes are left, so
// every call asks for a whole send (the whole file, if it is shorter).
func (s *FileSource) send(fd, n int) (int, unix.Errno) {
	if s.size-s.off < int64(n) {
		s.off = 0
	}
	return sock.Sendfile(fd, s.fd, &s.off, int(min(int64(n), s.size)))
}

// Close closes the file.
func (s *FileSource) Close() error { return s.f.Close() }
