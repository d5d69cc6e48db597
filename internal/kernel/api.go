// Package kernel holds the numeric kernels of the model: GEMM, the special
// functions of the Gamma distribution and elementwise maps. Every kernel is
// generic over float32 and float64; float32 takes the fast paths (archsimd
// under GOEXPERIMENT=simd, multi-core), float64 runs the pure-Go
// specification, which the parity and gradient-check tests use.
//
// The float32 paths pick AVX-512, AVX2 or pure Go at start-up (Backend says
// which) and split large calls over GOMAXPROCS goroutines: the caller and a
// team of helper goroutines started once, so that no call allocates.
// Results do not depend on the number of goroutines: no reduction is ever
// split across them. All kernels are safe for concurrent use. Misuse
// (negative sizes, short slices) panics with a message naming the kernel,
// like an index out of range.
package kernel

import "fmt"

// Float is the element type of every kernel.
type Float interface{ ~float32 | ~float64 }

// Work sizes (elements) below which a call stays on one goroutine.
const (
	grainSpecial = 8 << 10  // lgamma, digamma, trigamma
	grainMap     = 32 << 10 // exp, log
	grainStream  = 64 << 10 // memory-bound helpers
)

// Gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where
// op(X) is X or Xᵀ as transA/transB say. op(A) is m×k, op(B) is k×n, C is m×n;
// lda, ldb, ldc are the row strides of A, B, C as stored. beta = 0 overwrites
// C without reading it (NaNs in C do not propagate). C must not overlap A
// or B.
//
// All four transpose cases take the blocked path; forward X·W, dX = dY·Wᵀ and
// dW = Xᵀ·dY run at about the same rate. The float32 result is
// beta·c + Σₚ (alpha·a)·b summed in order of p, so it differs from the
// reference in rounding only, and not at all with the thread count.
//
// Up to 16 rows (m ≤ 16: answering a few queries) take a path that streams
// B once instead of packing it (gemm_small.go), memory-bound: 1×14505×1600
// with Bᵀ in ≈ 3 ms on 2 cores. Its results are the blocked path's bits,
// except with transB on the vector levels: there each element is a dot
// product summed in vector lanes, then across them in a fixed order and
// added to beta·c. A row's result then does not depend on m (≤ 16), the
// other rows or the thread count, but may differ in the last bits from the
// same row in a product of more than 16 rows.
func Gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemm(workers(), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// GemmSerial is Gemm on the calling goroutine alone, with the same bits:
// for callers that keep the cores busy with independent products of their
// own.
func GemmSerial[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemm(1, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func gemm[T Float](w int, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	defer clearUpper()
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if a32, ok := any(a).([]float32); ok {
		gemm32(w, &cur.gemm, transA, transB, m, n, k, float32(alpha), a32, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
		return
	}
	gemmRef(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Lgamma sets dst[i] = ln Γ(x[i]) for x > 0 (NaN for x ≤ 0 or NaN); dst and
// x have the same length and may be the same slice. float32: relative
// error ≤ 4e-7 for all x > 0, the roots x = 1, 2 included (measured: 6e-8,
// i.e. correctly rounded up to ~1e-10).
func Lgamma[T Float](dst, x []T) {
	defer clearUpper()
	mapf(dst, x, "Lgamma", grainSpecial, cur.lgamma, lgammaRef[T])
}

// Digamma sets dst[i] = ψ(x[i]) for x > 0 (NaN for x ≤ 0 or NaN).
// float32: relative error ≤ 4e-7, absolute ≤ 1e-7 near the root 1.4616
// (measured: 6e-8 relative everywhere, the root included).
func Digamma[T Float](dst, x []T) {
	defer clearUpper()
	mapf(dst, x, "Digamma", grainSpecial, cur.digamma, digammaRef[T])
}

// Trigamma sets dst[i] = ψ'(x[i]) for x > 0 (NaN for x ≤ 0 or NaN).
// float32: relative error ≤ 1e-6 (measured: 6e-8).
func Trigamma[T Float](dst, x []T) {
	defer clearUpper()
	mapf(dst, x, "Trigamma", grainSpecial, cur.trigamma, trigammaRef[T])
}

// Exp sets dst[i] = e^x[i]. float32: within 2 ulp, subnormal results
// included; overflow gives +Inf.
func Exp[T Float](dst, x []T) {
	defer clearUpper()
	mapf(dst, x, "Exp", grainMap, cur.exp, expRef[T])
}

// Log sets dst[i] = ln x[i]: −Inf for 0, NaN for x < 0. float32: within
// 2 ulp, subnormal x included.
func Log[T Float](dst, x []T) {
	defer clearUpper()
	mapf(dst, x, "Log", grainMap, cur.log, logRef[T])
}

// Axpy sets y += alpha·x; x and y have the same length.
func Axpy[T Float](alpha T, x, y []T) {
	defer clearUpper()
	checkLen("Axpy", len(y), len(x))
	if x32, ok := any(x).([]float32); ok {
		y32, a := any(y).([]float32), float32(alpha)
		if len(x) <= grainStream {
			cur.axpy(a, x32, y32)
			return
		}
		b := axpyBodies.get()
		*b = axpyBody{alpha: a, x: x32, y: y32}
		parallelRange(len(x), grainStream, b)
		axpyBodies.put(b)
		return
	}
	axpyRef(alpha, x, y)
}

// Dot returns Σ x[i]·y[i]; x and y have the same length. float32 sums in
// vector lanes (one goroutine, so the result is deterministic).
func Dot[T Float](x, y []T) T {
	defer clearUpper()
	checkLen("Dot", len(y), len(x))
	if x32, ok := any(x).([]float32); ok {
		return T(cur.dot(x32, any(y).([]float32)))
	}
	return dotRef(x, y)
}

// CopyStream copies src to dst (of the same length) for a destination
// that will not be read again soon: where it can (float32 on the vector
// levels, dst on a 64-byte boundary, whole lines), with non-temporal
// stores, which write memory without first reading each destination line
// into the cache (a third of a plain copy's memory traffic when dst is
// far larger than the cache).
func CopyStream[T Float](dst, src []T) {
	checkLen("CopyStream", len(dst), len(src))
	if s32, ok := any(src).([]float32); ok {
		cur.stream(any(dst).([]float32), s32)
		return
	}
	copy(dst, src)
}

// Scale sets x *= alpha.
func Scale[T Float](alpha T, x []T) {
	defer clearUpper()
	if x32, ok := any(x).([]float32); ok {
		a := float32(alpha)
		if len(x) <= grainStream {
			cur.scale(a, x32)
			return
		}
		b := axpyBodies.get()
		*b = axpyBody{alpha: a, x: x32}
		parallelRange(len(x), grainStream, b)
		axpyBodies.put(b)
		return
	}
	scaleRef(alpha, x)
}

// AddBias adds bias (length cols) to every row of the rows×cols matrix c.
func AddBias[T Float](c, bias []T, rows, cols int) {
	defer clearUpper()
	checkRows("AddBias", len(c), len(bias), rows, cols)
	if c32, ok := any(c).([]float32); ok {
		rowsf(c32, any(bias).([]float32), rows, cols, cur.addBias)
		return
	}
	addBiasRef(c, bias, rows, cols, false)
}

// AddBiasReLU sets c = max(c + bias, 0) for every row of the rows×cols
// matrix c (the forward pass of Linear then ReLU after c = x·W). NaN stays NaN.
func AddBiasReLU[T Float](c, bias []T, rows, cols int) {
	defer clearUpper()
	checkRows("AddBiasReLU", len(c), len(bias), rows, cols)
	if c32, ok := any(c).([]float32); ok {
		rowsf(c32, any(bias).([]float32), rows, cols, cur.addBiasReLU)
		return
	}
	addBiasRef(c, bias, rows, cols, true)
}

// AffineRows sets c[i·cols+j] = a·(c[i·cols+j] + x[j]) + b[i] for every row
// i of the rows×cols matrix c, rows split over goroutines: the epilogue of a
// score table (c the products, x a per-column term, b a per-row one) in one
// pass, the sum rounded first.
func AffineRows[T Float](c, x []T, rows, cols int, a T, b []T) {
	defer clearUpper()
	checkRows("AffineRows", len(c), len(x), rows, cols)
	checkLen("AffineRows", len(b), rows)
	if c32, ok := any(c).([]float32); ok {
		x32, b32, a32 := any(x).([]float32), any(b).([]float32), float32(a)
		if rows*cols <= grainStream {
			for i := range rows {
				cur.affine(c32[i*cols:(i+1)*cols], x32, a32, b32[i])
			}
			return
		}
		ab := affineBodies.get()
		*ab = affineBody{c: c32, x: x32, b: b32, a: a32, cols: cols}
		parallelRange(rows, max(1, grainStream/max(cols, 1)), ab)
		affineBodies.put(ab)
		return
	}
	for i := range rows {
		affineRef(c[i*cols:(i+1)*cols], x, a, b[i])
	}
}

// ReLUBackward zeroes dy[i] where y[i] ≤ 0 (y is the ReLU output), i.e.
// dy *= (y > 0); dy and y have the same length.
func ReLUBackward[T Float](dy, y []T) {
	defer clearUpper()
	checkLen("ReLUBackward", len(y), len(dy))
	if dy32, ok := any(dy).([]float32); ok {
		y32 := any(y).([]float32)
		if len(dy) <= grainStream {
			cur.reluBackward(dy32, y32)
			return
		}
		b := mapBodies.get()
		*b = mapBody{f: cur.reluBackward, dst: dy32, x: y32}
		parallelRange(len(dy), grainStream, b)
		mapBodies.put(b)
		return
	}
	reluBackwardRef(dy, y)
}

// SumRows overwrites dst[j] with Σᵢ x[i·cols+j], the column sums of the
// rows×cols matrix x (the bias gradient; to add into an existing gradient,
// sum into scratch and Axpy(1, scratch, grad)). Each column is summed in row order, so every
// level gives the same result as the reference.
func SumRows[T Float](dst, x []T, rows, cols int) {
	defer clearUpper()
	checkRows("SumRows", len(x), len(dst), rows, cols)
	if x32, ok := any(x).([]float32); ok {
		sumRows32(any(dst).([]float32), x32, rows, cols)
		return
	}
	sumRowsRef(dst, x, rows, cols)
}

// mapf applies an elementwise kernel: float32 through fast (the current
// level's), split over goroutines; other types through ref.
func mapf[T Float](dst, x []T, name string, grain int, fast func(d, s []float32), ref func(d, s []T)) {
	checkLen(name, len(dst), len(x))
	if x32, ok := any(x).([]float32); ok {
		d32 := any(dst).([]float32)
		if len(x) <= grain {
			fast(d32, x32)
			return
		}
		b := mapBodies.get()
		*b = mapBody{f: fast, dst: d32, x: x32}
		parallelRange(len(x), grain, b)
		mapBodies.put(b)
		return
	}
	ref(dst, x)
}

// rowsf applies a one-row kernel to every row of c, rows split over goroutines.
func rowsf(c, bias []float32, rows, cols int, f func(c, b []float32)) {
	if rows*cols <= grainStream {
		for i := range rows {
			f(c[i*cols:(i+1)*cols], bias)
		}
		return
	}
	b := rowsBodies.get()
	*b = rowsBody{f: f, c: c, bias: bias, cols: cols}
	parallelRange(rows, max(1, grainStream/max(cols, 1)), b)
	rowsBodies.put(b)
}

// sumRows32 splits the columns (never the rows) over goroutines.
func sumRows32(dst, x []float32, rows, cols int) {
	grain := max(1024, grainStream/max(rows, 1))
	if cols <= grain || workers() <= 1 {
		one := sumRowsBody{dst: dst, x: x, rows: rows, cols: cols}
		one.do(0, cols)
		return
	}
	b := sumRowsBodies.get()
	*b = sumRowsBody{dst: dst, x: x, rows: rows, cols: cols}
	parallelRange(cols, grain, b)
	sumRowsBodies.put(b)
}

func checkLen(name string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("kernel.%s: slice lengths %d and %d differ", name, want, got))
	}
}

func checkRows(name string, lenC, lenBias, rows, cols int) {
	if rows < 0 || cols < 0 || lenC < rows*cols || lenBias != cols {
		panic(fmt.Sprintf("kernel.%s: %d×%d matrix needs len ≥ %d and a vector of %d, got %d and %d", name, rows, cols, rows*cols, cols, lenC, lenBias))
	}
}

// checkGemm panics unless the sizes and strides describe matrices inside
// the slices.
func checkGemm(transA, transB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kernel.Gemm: negative size m=%d n=%d k=%d", m, n, k))
	}
	check := func(name string, trans bool, rows, cols, l, ld int) {
		if trans {
			rows, cols = cols, rows
		}
		if rows == 0 || cols == 0 {
			return // empty: no element is read or written
		}
		if ld < cols {
			panic(fmt.Sprintf("kernel.Gemm: ld%s = %d < %d columns", name, ld, cols))
		}
		if l < (rows-1)*ld+cols {
			panic(fmt.Sprintf("kernel.Gemm: len(%s) = %d, %d×%d with stride %d needs %d", name, l, rows, cols, ld, (rows-1)*ld+cols))
		}
	}
	check("a", transA, m, k, la, lda)
	check("b", transB, k, n, lb, ldb)
	check("c", false, m, n, lc, ldc)
}

// ClearUpper clears the upper halves of the vector registers (VZEROUPPER
// where the build has the vector kernels; nothing otherwise). Go's
// asynchronous preemption resumes a goroutine with the vector state it
// saved, dirty halves included, so a long run of scalar float code (the
// baselines' trigonometry and special functions in float64) calls it at
// the top of each chunk of work: a preemption then slows at most the rest
// of one chunk with false dependencies, not the rest of the loop.
func ClearUpper() { clearUpper() }
