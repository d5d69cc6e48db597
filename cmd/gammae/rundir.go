package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gammae/gammae/checkpoint"
)

// runFiles are the files a training run writes into its directory (the
// checkpoint's also as .prev and .next, see train's commitSet).
var runFiles = []string{checkpoint.ConfigFile, checkpoint.ModelFile, checkpoint.BestFile,
	checkpoint.OptimizerFile, checkpoint.StateFile, checkpoint.LogFile,
	checkpoint.ModelFile + ".prev", checkpoint.OptimizerFile + ".prev", checkpoint.StateFile + ".prev",
	checkpoint.ModelFile + ".next", checkpoint.OptimizerFile + ".next", checkpoint.StateFile + ".next"}

// freshRunDir refuses to start a run in a directory that holds one, unless
// force, which deletes that run's files (and only those).
func freshRunDir(dir string, force bool) error {
	var found []string
	for _, f := range runFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			found = append(found, f)
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(found) == 0 {
		return nil
	}
	if !force {
		what := "a run"
		if st, err := os.ReadFile(filepath.Join(dir, checkpoint.StateFile)); err == nil {
			what = fmt.Sprintf("a run (%s)", iterationOf(st))
		}
		return fmt.Errorf("%s holds %s: continue it with --resume, or start over with --force (deletes it)", dir, what)
	}
	for _, f := range found {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	return nil
}

// iterationOf describes how far a run's state.json got.
func iterationOf(state []byte) string {
	var st struct {
		Iteration int `json:"iteration"`
	}
	if err := json.Unmarshal(state, &st); err != nil {
		return "unreadable state"
	}
	return fmt.Sprintf("trained for %d iterations", st.Iteration)
}

// checkOutDir fails early, before hours of work, when the directory an
// output file goes to does not exist or is not a directory.
func checkOutDir(flagName, path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: directory %s: %w", flagName, path, dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flagName, path, dir)
	}
	return nil
}
