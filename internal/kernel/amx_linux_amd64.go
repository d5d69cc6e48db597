//go:build goexperiment.simd

package kernel

import "syscall"

// hasAMX reports whether this process may use the AMX tiles: the CPU and
// OS offer them and Linux granted the permission to use the tile data
// (arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA; without it the
// first tile instruction kills the process). A refusal leaves the other
// levels.
func hasAMX() bool {
	const archReqXcompPerm, xfeatureXtiledata = 0x1023, 18
	if !amxCPU() {
		return false
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0)
	return errno == 0
}
