//go:build linux || darwin || freebsd || netbsd || openbsd

package mapfile

import (
	"os"
	"syscall"
)

// Read returns the bytes of the file at path, and release, which gives them
// back once the caller keeps nothing that points into them. A regular file
// of at least min bytes is mapped copy-on-write rather than read; anything
// else, or a mapping the system refuses, is read into memory, and release
// does nothing.
func Read(path string, min int64) (b []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if size := st.Size(); st.Mode().IsRegular() && size >= min && size > 0 && int64(int(size)) == size {
		m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
		if err == nil {
			return m, func() { syscall.Munmap(m) }, nil
		}
	}
	b, err = os.ReadFile(path)
	return b, func() {}, err
}
