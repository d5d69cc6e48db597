//go:build goexperiment.simd

package kernel

import "fmt"

//go:noescape
func amxTile(kb int, a *uint32, lda int, b *uint32, c *float32, ldc int, cfg *[64]byte)

func xgetbv0() uint64

// amxConfig is the tile configuration amxTile loads: palette 1, tiles
// 0–7 of 16 rows × 64 bytes.
var amxConfig = func() (c [64]byte) {
	c[0] = 1
	for t := range 8 {
		c[16+2*t] = 64 // bytes per row (little-endian uint16)
		c[48+t] = 16   // rows
	}
	return c
}()

// amxTileAsm is the AMX tile kernel (impl.amx).
func amxTileAsm(kb int, a []uint32, lda int, b []uint32, c []float32, ldc int) {
	kw := kb * amxWords
	if kb <= 0 || lda < kw || len(a) < (amxBlock-1)*lda+kw || len(b) < kw*bf16Cols || ldc < amxBlock || len(c) < (amxBlock-1)*ldc+amxBlock {
		panic(fmt.Sprintf("kernel: AMX tile on %d, %d and %d values for %d steps", len(a), len(b), len(c), kb))
	}
	amxTile(kb, &a[0], lda, &b[0], &c[0], ldc, &amxConfig)
}

// amxCPU reports whether the CPU has the AMX tiles with bfloat16 products
// (CPUID leaf 7: EDX bits 24 and 22) and the OS manages their state (XCR0
// bits 17 and 18).
func amxCPU() bool {
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return false
	}
	if _, _, c, _ := cpuid(1, 0); c&(1<<27) == 0 { // OSXSAVE: XGETBV exists
		return false
	}
	if _, _, _, d := cpuid(7, 0); d&(1<<24) == 0 || d&(1<<22) == 0 {
		return false
	}
	return xgetbv0()&(3<<17) == 3<<17
}
