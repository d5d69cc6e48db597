//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package mapfile

import "os"

// Read reads the whole file where files are not mapped (see
// mapfile_unix.go); release does nothing.
func Read(path string, _ int64) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
