package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessGrows checks that busy work shows up as CPU time on the
// platforms that report it.
func TestProcessGrows(t *testing.T) {
	t0 := Process()
	if t0 == 0 && runtime.GOOS == "windows" {
		t.Skip("CPU time not reported here")
	}
	x := 1.0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x = x*1.0000001 + 1e-9
	}
	if d := Process() - t0; d <= 0 {
		t.Fatalf("CPU time did not grow over 50 ms of work (%v, x=%v)", d, x)
	}
}
