package train

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
)

// killConfig checkpoints every iteration, so that kills land in saves.
func killConfig() Config {
	c := tinyConfig()
	c.Steps, c.CheckpointEvery = 1500, 1
	return c
}

// TestKillHelper is the training process TestKillAtRandomInstants kills:
// it runs (or resumes) the run in $GAMMAE_KILL_DIR on the dataset saved in
// $GAMMAE_KILL_DATA.
func TestKillHelper(t *testing.T) {
	dir := os.Getenv("GAMMAE_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestKillAtRandomInstants")
	}
	d, err := dataset.Load(os.Getenv("GAMMAE_KILL_DATA"))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(filepath.Join(dir, checkpoint.ConfigFile))
	if _, err := Run(context.Background(), killConfig(), d, Options{Dir: dir, Resume: statErr == nil}); err != nil {
		t.Fatal(err)
	}
}

// TestKillAtRandomInstants kills a training process with SIGKILL at random
// instants (many of them inside a checkpoint save, which happens every
// iteration), resumes it each time, and checks that every resume works and
// that the loss of every iteration equals an uninterrupted run's, bit for
// bit.
func TestKillAtRandomInstants(t *testing.T) {
	if testing.Short() {
		t.Skip("starts training processes")
	}
	dir := t.TempDir()
	d := tinyDataset(t)
	data := filepath.Join(dir, "tiny.gqd")
	if err := dataset.Save(data, d); err != nil {
		t.Fatal(err)
	}
	straight := filepath.Join(dir, "straight")
	if _, err := Run(context.Background(), killConfig(), d, Options{Dir: straight}); err != nil {
		t.Fatal(err)
	}
	want := stepLosses(t, straight)

	killed := filepath.Join(dir, "killed")
	rng := rand.New(rand.NewPCG(7, 7))
	deadline := time.Now().Add(4 * time.Second)
	kills := 0
	for time.Now().Before(deadline) {
		cmd := helper(killed, data)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("resume after %d kills failed: %v\n%s", kills, err, cmd.Stdout)
			}
			deadline = time.Now() // finished before the kill
		case <-time.After(time.Duration(10+rng.IntN(300)) * time.Millisecond):
			cmd.Process.Kill()
			<-done
			kills++
		}
	}
	cmd := helper(killed, data)
	if err := cmd.Run(); err != nil {
		t.Fatalf("final resume after %d kills: %v\n%s", kills, err, cmd.Stdout)
	}
	t.Logf("%d kills", kills)
	got := stepLosses(t, killed)
	if len(got) != len(want) {
		t.Fatalf("killed run logged %d iterations, the straight run %d", len(got), len(want))
	}
	for step, l := range want {
		if got[step] != l {
			t.Errorf("iteration %d: loss %v after kills, %v straight", step, got[step], l)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(killed, ".*tmp*")); len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func helper(dir, data string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GAMMAE_KILL_DIR="+dir, "GAMMAE_KILL_DATA="+data)
	cmd.Stdout = new(bytes.Buffer)
	cmd.Stderr = cmd.Stdout
	return cmd
}

// stepLosses reads a run's log: the last loss logged for each step (a
// resumed run logs again the iterations after its checkpoint).
func stepLosses(t *testing.T, dir string) map[int]float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, checkpoint.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]float64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var r struct {
			Step int      `json:"step"`
			Loss *float64 `json:"loss"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: line %q: %v", dir, sc.Text(), err)
		}
		if r.Loss != nil {
			out[r.Step] = *r.Loss
		}
	}
	return out
}
