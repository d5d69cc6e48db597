//go:build goexperiment.simd

#include "textflag.h"
#include "micro_amd64.h"

// BF16_STEP is one k step of a 4×16 quarter of the tile: B's 16 word
// pairs (DI) split into their odd (high) halves in Y8, Y9 and even (low)
// halves in Y10, Y11 as float32; each row's A word (SI + off) broadcast
// and split likewise into Y12 (odd) and Y13 (even); the accumulators
// Y0–Y7 (row r in Y(2r), Y(2r+1)) take the odd product, then the even
// one: VDPBF16PS's order. Y14 holds 0xffff0000 in every lane.
#define BF16_ROW(off, acc0, acc1) \
	VPBROADCASTD off(SI), Y12; \
	VPSLLD       $16, Y12, Y13; \
	VPAND        Y14, Y12, Y12; \
	VFMADD231PS  Y8, Y12, acc0; \
	VFMADD231PS  Y9, Y12, acc1; \
	VFMADD231PS  Y10, Y13, acc0; \
	VFMADD231PS  Y11, Y13, acc1

#define BF16_STEP \
	VMOVDQU (DI), Y8; \
	VMOVDQU 32(DI), Y9; \
	VPSLLD  $16, Y8, Y10; \
	VPSLLD  $16, Y9, Y11; \
	VPAND   Y14, Y8, Y8; \
	VPAND   Y14, Y9, Y9; \
	BF16_ROW(0, Y0, Y1); \
	BF16_ROW(4, Y2, Y3); \
	BF16_ROW(8, Y4, Y5); \
	BF16_ROW(12, Y6, Y7); \
	ADDQ    $32, SI; \
	ADDQ    $128, DI

#define ZERO_Y0_7 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7

// BF16_STORE writes the quarter's four rows to C at CX (row stride R13
// bytes).
#define BF16_STORE \
	C_STORE(Y0, Y1, 32); \
	C_STORE(Y2, Y3, 32); \
	C_STORE(Y4, Y5, 32); \
	C_STORE(Y6, Y7, 32)

// BF16_START points SI, DI and CX at a quarter: A's rows from aoff bytes
// into each step, B's columns from boff bytes, C at row `rows` of the
// tile and byte offset boff; AX counts the steps; the accumulators start
// at zero.
#define BF16_START(aoff, boff, rows) \
	MOVQ kp+0(FP), AX; \
	MOVQ a+8(FP), SI; \
	ADDQ $aoff, SI; \
	MOVQ b+16(FP), DI; \
	ADDQ $boff, DI; \
	MOVQ R13, CX; \
	IMULQ $rows, CX; \
	ADDQ DX, CX; \
	ADDQ $boff, CX; \
	ZERO_Y0_7

// func microBF16AVX2Asm(kp int, a *uint32, b *uint32, c *float32, ldc int)
//
// The bfloat16 8×32 micro-kernel (microBF16Go's contract) for CPUs with
// AVX2 and FMA but no AVX512-BF16: each 32-bit word holds two bfloat16
// values, widened to float32 by a shift (the even, low half) or a mask
// (the odd, high half), and each product-add is one FMA: a product of two
// bfloat16 values is exact in float32, so the FMA rounds once, as
// VDPBF16PS's add does. MXCSR's DAZ and FTZ bits are set for the call
// (and the caller's MXCSR restored): denormal inputs read as zero and
// denormal sums are flushed, as VDPBF16PS does. No Go code runs under
// those bits: an assembly function is never preempted asynchronously,
// and Linux starts a signal handler on the initial FPU state. Sixteen
// registers hold only a 4×16 quarter of the tile (eight accumulators), so
// the tile is four passes over the panels.
TEXT ·microBF16AVX2Asm(SB), NOSPLIT, $8-40
	VSTMXCSR 0(SP)
	MOVL     0(SP), R11
	ORL      $0x8040, R11 // FTZ (bit 15), DAZ (bit 6)
	MOVL     R11, 4(SP)
	VLDMXCSR 4(SP)

	VPCMPEQD Y14, Y14, Y14
	VPSLLD   $16, Y14, Y14
	MOVQ     c+24(FP), DX
	MOVQ     ldc+32(FP), R13
	SHLQ     $2, R13

	BF16_START(0, 0, 0)
q0:
	BF16_STEP
	DECQ AX
	JNZ  q0
	BF16_STORE

	BF16_START(0, 64, 0)
q1:
	BF16_STEP
	DECQ AX
	JNZ  q1
	BF16_STORE

	BF16_START(16, 0, 4)
q2:
	BF16_STEP
	DECQ AX
	JNZ  q2
	BF16_STORE

	BF16_START(16, 64, 4)
q3:
	BF16_STEP
	DECQ AX
	JNZ  q3
	BF16_STORE

	VZEROUPPER
	VLDMXCSR 0(SP)
	RET
