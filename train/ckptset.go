package train

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gammae/gammae/checkpoint"
)

// A checkpoint is three files (model, optimiser, state) that must come from
// the same iteration. Each is written whole under "<name>.next" (atomically:
// temp file, sync, rename), then committed: the current file becomes
// "<name>.prev" and the .next file takes its name. A kill at any instant
// leaves, for every file, the last complete iteration among its main, .prev
// and .next versions, so resolveSet can always put together the newest
// iteration all three have. Each file records its iteration (the model and
// optimiser files in their metadata, the state in its JSON).

// setFiles are a checkpoint's files, committed in this order.
var setFiles = []string{checkpoint.ModelFile, checkpoint.OptimizerFile, checkpoint.StateFile}

const (
	nextSuffix = ".next"
	prevSuffix = ".prev"
)

// commitSet moves the .next files of dir into place, keeping each replaced
// file as its .prev.
func commitSet(dir string) error {
	for _, f := range setFiles {
		p := filepath.Join(dir, f)
		if err := os.Rename(p, p+prevSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := os.Rename(p+nextSuffix, p); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// resolveSet makes the main files of dir the newest complete checkpoint:
// the highest iteration for which each of the three files has a version
// (main, .prev or .next). It removes temporary files a kill left behind and
// returns the iteration.
func resolveSet(dir string) (int, error) {
	cleanTemps(dir)
	have := make([]map[int]string, len(setFiles)) // iteration → path, per file
	for i, f := range setFiles {
		have[i] = map[int]string{}
		for _, suffix := range []string{prevSuffix, "", nextSuffix} { // later wins for equal iterations
			p := filepath.Join(dir, f+suffix)
			if it, err := fileIteration(p); err == nil {
				have[i][it] = p
			}
		}
	}
	best := -1
	for it := range have[0] {
		if _, ok := have[1][it]; !ok {
			continue
		}
		if _, ok := have[2][it]; ok && it > best {
			best = it
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("no complete checkpoint in %s (its model, optimizer and state files are from different iterations or missing); start over with --force", dir)
	}
	for i, f := range setFiles {
		p := filepath.Join(dir, f)
		if src := have[i][best]; src != p {
			if err := os.Rename(src, p); err != nil {
				return 0, err
			}
		}
	}
	return best, syncDir(dir)
}

// cleanTemps removes the temporary files of interrupted atomic writes.
func cleanTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp") {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// fileIteration reads the iteration a checkpoint file records.
func fileIteration(path string) (int, error) {
	if strings.HasPrefix(filepath.Base(path), checkpoint.StateFile) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		var st struct {
			Iteration *int `json:"iteration"`
		}
		if err := json.Unmarshal(b, &st); err != nil || st.Iteration == nil {
			return 0, fmt.Errorf("%s: no iteration", path)
		}
		return *st.Iteration, nil
	}
	meta, err := safetensorsMeta(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(meta["gammae.iteration"])
}

// safetensorsMeta reads a safetensors file's metadata from its header only.
func safetensorsMeta(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var n [8]byte
	if _, err := io.ReadFull(f, n[:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint64(n[:])
	if size > 100<<20 {
		return nil, fmt.Errorf("%s: header of %d bytes", path, size)
	}
	h := make([]byte, size)
	if _, err := io.ReadFull(f, h); err != nil {
		return nil, err
	}
	var header struct {
		Meta map[string]string `json:"__metadata__"`
	}
	if err := json.Unmarshal(h, &header); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return header.Meta, nil
}

// syncDir makes the renames in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// dropPartialLine truncates a log that a kill left with an unfinished last
// line, so that the resumed run's first record starts a line of its own.
func dropPartialLine(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return nil
	}
	i := strings.LastIndexByte(string(b), '\n')
	return os.Truncate(path, int64(i+1))
}
