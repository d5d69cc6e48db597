//go:build !unix

package main

import "time"

// cpuTime is unknown here; --bench then reports the wall clock alone.
func cpuTime() time.Duration { return 0 }
