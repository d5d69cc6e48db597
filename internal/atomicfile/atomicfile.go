// Package atomicfile writes files so that readers, and a crash at any
// instant, see either the old file or the whole new one: the content goes
// to a temporary file beside the target, which is synced, made readable
// (0644) and renamed over it, and the directory is synced so that the
// rename itself survives a power cut.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what fill writes to f (positioned at
// the start; fill may also seek or WriteAt). On error nothing is left
// behind and path is untouched; errors name path, not the temporary file.
func Write(path string, fill func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("write %s: %w", path, unwrapPath(err))
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil { // CreateTemp makes it private
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// WriteBuffered is Write through a buffered writer, for content produced
// in pieces.
func WriteBuffered(path string, fill func(w io.Writer) error) error {
	return Write(path, func(f *os.File) error {
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// WriteFile is Write of data.
func WriteFile(path string, data []byte) error {
	return Write(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// SyncDir makes the entries of dir (renames, creations) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// unwrapPath drops the temporary file's name from a *PathError: the caller
// names the target instead.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
