//go:build goexperiment.simd

#include "textflag.h"
#include "micro_amd64.h"

// MICRO_ARGS loads the arguments of both kernels (same signature) as byte
// strides: AX k, SI a (row 0), R8 the row stride, R9 a + 3 rows, R11 A's
// k step, DI b, R12 B's k step, DX c, R13 C's row stride, BX load.
#define MICRO_ARGS \
	MOVQ k+0(FP), AX; \
	MOVQ a+8(FP), SI; \
	MOVQ ar+16(FP), R8; \
	MOVQ ap+24(FP), R11; \
	MOVQ b+32(FP), DI; \
	MOVQ bp+40(FP), R12; \
	MOVQ c+48(FP), DX; \
	MOVQ ldc+56(FP), R13; \
	MOVBLZX load+64(FP), BX; \
	SHLQ $2, R8; \
	SHLQ $2, R11; \
	SHLQ $2, R12; \
	SHLQ $2, R13; \
	LEAQ (R8)(R8*2), CX; \
	LEAQ (SI)(CX*1), R9

// func micro8x32(k int, a *float32, ar, ap int, b *float32, bp int, c *float32, ldc int, load bool)
//
// The 8×32 AVX-512 micro-kernel: C[r][j] (+)= Σ_p A(r, p)·B[p][j] over k ≥ 1
// steps, A(r, p) at a[r·ar + p·ap], B[p][j] at b[p·bp + j], C[r][j] at
// c[r·ldc + j]; with load false the sums start from zero instead of C.
// Sixteen accumulators Z16–Z31 (row r in Z(16+2r), Z(17+2r)), B's two
// vectors in Z0, Z1; each A element is an embedded broadcast of the FMA
// (one instruction). Rows are addressed from three bases a, a + 3·ar and
// a + 6·ar with the row stride as index (scales 1, 2, 4).
TEXT ·micro8x32(SB), NOSPLIT, $0-65
	MICRO_ARGS
	LEAQ (R9)(CX*1), R10

	TESTQ BX, BX
	JZ    zero
	MOVQ  DX, CX
	C_LOAD(Z16, Z17, 64)
	C_LOAD(Z18, Z19, 64)
	C_LOAD(Z20, Z21, 64)
	C_LOAD(Z22, Z23, 64)
	C_LOAD(Z24, Z25, 64)
	C_LOAD(Z26, Z27, 64)
	C_LOAD(Z28, Z29, 64)
	C_LOAD(Z30, Z31, 64)
	JMP   loop

zero:
	ZERO_Z16_23
	ZERO_Z24_31

loop:
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VFMADD231PS.BCST (SI), Z0, Z16
	VFMADD231PS.BCST (SI), Z1, Z17
	VFMADD231PS.BCST (SI)(R8*1), Z0, Z18
	VFMADD231PS.BCST (SI)(R8*1), Z1, Z19
	VFMADD231PS.BCST (SI)(R8*2), Z0, Z20
	VFMADD231PS.BCST (SI)(R8*2), Z1, Z21
	VFMADD231PS.BCST (R9), Z0, Z22
	VFMADD231PS.BCST (R9), Z1, Z23
	VFMADD231PS.BCST (SI)(R8*4), Z0, Z24
	VFMADD231PS.BCST (SI)(R8*4), Z1, Z25
	VFMADD231PS.BCST (R9)(R8*2), Z0, Z26
	VFMADD231PS.BCST (R9)(R8*2), Z1, Z27
	VFMADD231PS.BCST (R10), Z0, Z28
	VFMADD231PS.BCST (R10), Z1, Z29
	VFMADD231PS.BCST (R10)(R8*1), Z0, Z30
	VFMADD231PS.BCST (R10)(R8*1), Z1, Z31
	ADDQ R11, SI
	ADDQ R11, R9
	ADDQ R11, R10
	ADDQ R12, DI
	DECQ AX
	JNZ  loop

	C_STORE_8x32
	VZEROUPPER
	RET

// func micro8x16(k int, a *float32, ar, ap int, b *float32, bp int, c *float32, ldc int, load bool)
//
// micro8x32 for the first 16 columns alone (one vector per row, the
// accumulators Z16–Z23): the 8×32 kernel's half tile for a block whose
// last panel has only 16 columns (n = 400 at d = 400), written straight to
// C instead of through a padded copy. Each element gets micro8x32's bits.
TEXT ·micro8x16(SB), NOSPLIT, $0-65
	MICRO_ARGS
	LEAQ (R9)(CX*1), R10

	TESTQ BX, BX
	JZ    zero16
	MOVQ  DX, CX
	C_LOAD1(Z16)
	C_LOAD1(Z17)
	C_LOAD1(Z18)
	C_LOAD1(Z19)
	C_LOAD1(Z20)
	C_LOAD1(Z21)
	C_LOAD1(Z22)
	C_LOAD1(Z23)
	JMP   loop16

zero16:
	ZERO_Z16_23

loop16:
	VMOVUPS (DI), Z0
	VFMADD231PS.BCST (SI), Z0, Z16
	VFMADD231PS.BCST (SI)(R8*1), Z0, Z17
	VFMADD231PS.BCST (SI)(R8*2), Z0, Z18
	VFMADD231PS.BCST (R9), Z0, Z19
	VFMADD231PS.BCST (SI)(R8*4), Z0, Z20
	VFMADD231PS.BCST (R9)(R8*2), Z0, Z21
	VFMADD231PS.BCST (R10), Z0, Z22
	VFMADD231PS.BCST (R10)(R8*1), Z0, Z23
	ADDQ R11, SI
	ADDQ R11, R9
	ADDQ R11, R10
	ADDQ R12, DI
	DECQ AX
	JNZ  loop16

	MOVQ DX, CX
	C_STORE1(Z16)
	C_STORE1(Z17)
	C_STORE1(Z18)
	C_STORE1(Z19)
	C_STORE1(Z20)
	C_STORE1(Z21)
	C_STORE1(Z22)
	C_STORE1(Z23)
	VZEROUPPER
	RET

// func micro6x16(k int, a *float32, ar, ap int, b *float32, bp int, c *float32, ldc int, load bool)
//
// The 6×16 AVX2 micro-kernel, with micro8x32's contract for a 6×16 tile.
// Twelve accumulators Y3–Y14 (row r in Y(3+2r), Y(4+2r)), B's two vectors
// in Y0, Y1, each A element broadcast into Y2 (AVX2 has no embedded
// broadcast). Rows are addressed from two bases a and a + 3·ar with the
// row stride as index (scales 1, 2, 4). Y15 stays unused (ABIInternal's
// zero register).
TEXT ·micro6x16(SB), NOSPLIT, $0-65
	MICRO_ARGS

	TESTQ BX, BX
	JZ    zero6
	MOVQ  DX, CX
	C_LOAD(Y3, Y4, 32)
	C_LOAD(Y5, Y6, 32)
	C_LOAD(Y7, Y8, 32)
	C_LOAD(Y9, Y10, 32)
	C_LOAD(Y11, Y12, 32)
	C_LOAD(Y13, Y14, 32)
	JMP   loop6

zero6:
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14

loop6:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VBROADCASTSS (SI), Y2
	VFMADD231PS Y0, Y2, Y3
	VFMADD231PS Y1, Y2, Y4
	VBROADCASTSS (SI)(R8*1), Y2
	VFMADD231PS Y0, Y2, Y5
	VFMADD231PS Y1, Y2, Y6
	VBROADCASTSS (SI)(R8*2), Y2
	VFMADD231PS Y0, Y2, Y7
	VFMADD231PS Y1, Y2, Y8
	VBROADCASTSS (R9), Y2
	VFMADD231PS Y0, Y2, Y9
	VFMADD231PS Y1, Y2, Y10
	VBROADCASTSS (SI)(R8*4), Y2
	VFMADD231PS Y0, Y2, Y11
	VFMADD231PS Y1, Y2, Y12
	VBROADCASTSS (R9)(R8*2), Y2
	VFMADD231PS Y0, Y2, Y13
	VFMADD231PS Y1, Y2, Y14
	ADDQ R11, SI
	ADDQ R11, R9
	ADDQ R12, DI
	DECQ AX
	JNZ  loop6

	MOVQ DX, CX
	C_STORE(Y3, Y4, 32)
	C_STORE(Y5, Y6, 32)
	C_STORE(Y7, Y8, 32)
	C_STORE(Y9, Y10, 32)
	C_STORE(Y11, Y12, 32)
	C_STORE(Y13, Y14, 32)
	VZEROUPPER
	RET

// func copyNT(dst, src *float32, n int)
//
// Copies n floats (a multiple of 16) from src to dst (64-byte aligned)
// with non-temporal stores: whole cache lines are written to memory
// without the lines being read first or kept in cache. SFENCE orders the
// stores before whatever the caller does next.
TEXT ·copyNT(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   done
loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVNTPS Y0, (DI)
	VMOVNTPS Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop
done:
	SFENCE
	VZEROUPPER
	RET
