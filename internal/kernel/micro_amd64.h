// Macros of the AVX-512 micro-kernels (micro_amd64.s, bf16_amd64.s): C
// tiles moved row by row (CX the row, R13 C's row stride in bytes) and
// accumulators cleared.

// C_LOAD and C_STORE move one row of the C tile (two vectors, the second
// at byte offset off) between memory at CX and registers r0, r1, and step
// CX to the next row.
#define C_LOAD(r0, r1, off) \
	VMOVUPS (CX), r0; \
	VMOVUPS off(CX), r1; \
	ADDQ R13, CX

#define C_STORE(r0, r1, off) \
	VMOVUPS r0, (CX); \
	VMOVUPS r1, off(CX); \
	ADDQ R13, CX

// C_LOAD1 and C_STORE1 move one vector of a C row: the half tile's.
#define C_LOAD1(r) \
	VMOVUPS (CX), r; \
	ADDQ R13, CX

#define C_STORE1(r) \
	VMOVUPS r, (CX); \
	ADDQ R13, CX

// ZERO_Z16_23 clears the accumulators of the 8×32 tile's first half.
#define ZERO_Z16_23 \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23

// ZERO_Z24_31 clears the accumulators of the 8×32 tile's second half.
#define ZERO_Z24_31 \
	VPXORD Z24, Z24, Z24; \
	VPXORD Z25, Z25, Z25; \
	VPXORD Z26, Z26, Z26; \
	VPXORD Z27, Z27, Z27; \
	VPXORD Z28, Z28, Z28; \
	VPXORD Z29, Z29, Z29; \
	VPXORD Z30, Z30, Z30; \
	VPXORD Z31, Z31, Z31

// C_STORE_8x32 writes the whole 8×32 tile from Z16–Z31 to C at DX.
#define C_STORE_8x32 \
	MOVQ DX, CX; \
	C_STORE(Z16, Z17, 64); \
	C_STORE(Z18, Z19, 64); \
	C_STORE(Z20, Z21, 64); \
	C_STORE(Z22, Z23, 64); \
	C_STORE(Z24, Z25, 64); \
	C_STORE(Z26, Z27, 64); \
	C_STORE(Z28, Z29, 64); \
	C_STORE(Z30, Z31, 64)
