//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (all threads): --bench
// reports it next to the wall clock, which other work on a shared machine
// slows more than it does the CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
