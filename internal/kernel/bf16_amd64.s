//go:build goexperiment.simd

#include "textflag.h"
#include "micro_amd64.h"

// func microBF16(kp int, a *uint32, b *uint32, c *float32, ldc int)
//
// The bfloat16 8×32 micro-kernel (microBF16Go's contract): C's tile (row
// stride ldc floats) set to Σ over kp steps of the A panel's word pairs
// (8 per step, one per row) times the B panel's (32 per step). Z16–Z31 are
// the accumulators (row r in Z(16+2r), Z(17+2r)), Z0 and Z1 B's step; each
// VDPBF16PS broadcasts its row's A word from memory. Go's assembler has no
// AVX512-BF16 mnemonics: the instructions are spelled out as bytes (EVEX,
// map 0F38, prefix F3, opcode 52, embedded broadcast), each one checked by
// a disassembler in the comment after it. Rows are addressed as in
// micro8x32: SI, SI + 3 rows (R9) and SI + 6 rows (R10), R8 one row (4
// bytes).
TEXT ·microBF16(SB), NOSPLIT, $0-40
	MOVQ kp+0(FP), AX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R13
	SHLQ $2, R13
	MOVQ $4, R8
	LEAQ 12(SI), R9
	LEAQ 24(SI), R10

	ZERO_Z16_23
	ZERO_Z24_31

loop:
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	BYTE $0x62; BYTE $0xE2; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x06 // VDPBF16PS.BCST (SI), Z0, Z16
	BYTE $0x62; BYTE $0xE2; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x0E // VDPBF16PS.BCST (SI), Z1, Z17
	BYTE $0x62; BYTE $0xA2; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x14; BYTE $0x06 // VDPBF16PS.BCST (SI)(R8*1), Z0, Z18
	BYTE $0x62; BYTE $0xA2; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x1C; BYTE $0x06 // VDPBF16PS.BCST (SI)(R8*1), Z1, Z19
	BYTE $0x62; BYTE $0xA2; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x24; BYTE $0x46 // VDPBF16PS.BCST (SI)(R8*2), Z0, Z20
	BYTE $0x62; BYTE $0xA2; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x2C; BYTE $0x46 // VDPBF16PS.BCST (SI)(R8*2), Z1, Z21
	BYTE $0x62; BYTE $0xC2; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x31 // VDPBF16PS.BCST (R9), Z0, Z22
	BYTE $0x62; BYTE $0xC2; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x39 // VDPBF16PS.BCST (R9), Z1, Z23
	BYTE $0x62; BYTE $0x22; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x04; BYTE $0x86 // VDPBF16PS.BCST (SI)(R8*4), Z0, Z24
	BYTE $0x62; BYTE $0x22; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x0C; BYTE $0x86 // VDPBF16PS.BCST (SI)(R8*4), Z1, Z25
	BYTE $0x62; BYTE $0x02; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x14; BYTE $0x41 // VDPBF16PS.BCST (R9)(R8*2), Z0, Z26
	BYTE $0x62; BYTE $0x02; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x1C; BYTE $0x41 // VDPBF16PS.BCST (R9)(R8*2), Z1, Z27
	BYTE $0x62; BYTE $0x42; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x22 // VDPBF16PS.BCST (R10), Z0, Z28
	BYTE $0x62; BYTE $0x42; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x2A // VDPBF16PS.BCST (R10), Z1, Z29
	BYTE $0x62; BYTE $0x02; BYTE $0x7E; BYTE $0x58; BYTE $0x52; BYTE $0x34; BYTE $0x02 // VDPBF16PS.BCST (R10)(R8*1), Z0, Z30
	BYTE $0x62; BYTE $0x02; BYTE $0x76; BYTE $0x58; BYTE $0x52; BYTE $0x3C; BYTE $0x02 // VDPBF16PS.BCST (R10)(R8*1), Z1, Z31

	ADDQ $32, SI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $128, DI
	DECQ AX
	JNZ  loop

	C_STORE_8x32
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET
