//go:build linux || darwin || freebsd || netbsd || openbsd

package dataset

import (
	"os"
	"syscall"
)

// mapMin is the least file size that readFile maps instead of reading.
var mapMin int64 = 1 << 20

// readFile returns the bytes of a dataset file, and release, which gives
// them back if the caller keeps nothing that points into them. With mapped,
// a large file is mapped copy-on-write rather than read: the checksum and
// the in-place arrays then touch the page cache's pages instead of a fresh
// copy's (a first touch of memory is dear on some hosts: FB15k-237's
// 600 MB file is read in about 3 s and mapped in under 1 s on one). A
// mapping stays for the life of the process.
func readFile(path string, mapped bool) (b []byte, release func(), err error) {
	if !mapped {
		b, err = os.ReadFile(path)
		return b, func() {}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if size := st.Size(); st.Mode().IsRegular() && size >= mapMin && size > 0 && int64(int(size)) == size {
		m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
		if err == nil {
			return m, func() { syscall.Munmap(m) }, nil
		}
	}
	b, err = os.ReadFile(path)
	return b, func() {}, err
}
