//go:build unix

// Package cputime reads the CPU time the process has used and, on Linux,
// the machine's steal time. Benchmarks report work per CPU-second next to
// the wall clock, and how much of the CPUs the hypervisor gave to other
// guests: other work on a shared machine slows the wall clock more than
// the CPU-time rate.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time the process has used (all threads, user and
// system), or 0 where unknown.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
