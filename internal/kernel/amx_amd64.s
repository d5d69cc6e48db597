//go:build goexperiment.simd

#include "textflag.h"

// func amxTile(kb int, a *uint32, lda int, b *uint32, c *float32, ldc int, cfg *[64]byte)
//
// The AMX tile kernel (amxTileGo's contract): the 32 × 32 block of C (row
// stride ldc floats) set to the sums over kb steps of 16 words. The tiles
// are configured from cfg (eight tiles of 16 rows × 64 bytes) and
// released within this call, so no tile state outlives it; an assembly
// function is never preempted asynchronously, and a signal's handler
// saves and restores the tile state with the rest. TMM0–TMM3 accumulate
// C's four 16 × 16 quarters; TMM4/TMM5 are A's rows 0–15 and 16–31 (SI,
// BX; row stride CX bytes), TMM6/TMM7 B's columns 0–15 and 16–31 (DI, AX;
// row stride DX = 128 bytes). Go's assembler has no AMX mnemonics: the
// instructions are spelled out as bytes (VEX, map 0F38), each checked by
// a disassembler in the comment after it.
TEXT ·amxTile(SB), NOSPLIT, $0-56
	MOVQ cfg+48(FP), AX
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0x00 // LDTILECFG (AX)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC0 // TILEZERO TMM0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC8 // TILEZERO TMM1
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD0 // TILEZERO TMM2
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD8 // TILEZERO TMM3
	MOVQ kb+0(FP), R8
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), CX
	SHLQ $2, CX
	MOVQ CX, BX
	SHLQ $4, BX
	ADDQ SI, BX
	MOVQ b+24(FP), DI
	LEAQ 64(DI), AX
	MOVQ $128, DX

loop:
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x24; BYTE $0x0E // TILELOADD (SI)(CX*1), TMM4
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x2C; BYTE $0x0B // TILELOADD (BX)(CX*1), TMM5
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x34; BYTE $0x17 // TILELOADD (DI)(DX*1), TMM6
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x3C; BYTE $0x10 // TILELOADD (AX)(DX*1), TMM7
	BYTE $0xC4; BYTE $0xE2; BYTE $0x4A; BYTE $0x5C; BYTE $0xC4 // TDPBF16PS TMM6, TMM4, TMM0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x42; BYTE $0x5C; BYTE $0xCC // TDPBF16PS TMM7, TMM4, TMM1
	BYTE $0xC4; BYTE $0xE2; BYTE $0x4A; BYTE $0x5C; BYTE $0xD5 // TDPBF16PS TMM6, TMM5, TMM2
	BYTE $0xC4; BYTE $0xE2; BYTE $0x42; BYTE $0x5C; BYTE $0xDD // TDPBF16PS TMM7, TMM5, TMM3
	ADDQ $64, SI
	ADDQ $64, BX
	ADDQ $2048, DI
	ADDQ $2048, AX
	DECQ R8
	JNZ  loop

	MOVQ c+32(FP), SI
	MOVQ ldc+40(FP), CX
	SHLQ $2, CX
	LEAQ 64(SI), BX
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x04; BYTE $0x0E // TILESTORED TMM0, (SI)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x0C; BYTE $0x0B // TILESTORED TMM1, (BX)(CX*1)
	MOVQ CX, AX
	SHLQ $4, AX
	ADDQ AX, SI
	ADDQ AX, BX
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x14; BYTE $0x0E // TILESTORED TMM2, (SI)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x1C; BYTE $0x0B // TILESTORED TMM3, (BX)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0xC0 // TILERELEASE
	RET

// func xgetbv0() uint64
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	XORL CX, CX
	XGETBV
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET
