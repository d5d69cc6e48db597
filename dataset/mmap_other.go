//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package dataset

import "os"

// mapMin is unused where files are not mapped (see mmap_unix.go).
var mapMin int64 = 1 << 20

// readFile reads the whole file, mapped or not; release does nothing.
func readFile(path string, _ bool) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
