//go:build goexperiment.simd && !linux

package kernel

// hasAMX: the tiles' permission request is Linux's; elsewhere they stay
// unused.
func hasAMX() bool { return false }
