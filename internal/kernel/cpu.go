package kernel

// level is an instruction-set level of the float32 fast paths.
type level int

const (
	levelGo     level = iota // pure Go, any CPU
	levelAVX2                // AVX2 + FMA, 8 float32 lanes
	levelAVX512              // AVX-512 F/CD/BW/DQ/VL, 16 float32 lanes
)

func (l level) String() string {
	switch l {
	case levelAVX2:
		return "avx2"
	case levelAVX512:
		return "avx512"
	}
	return "go"
}

// impl is the set of float32 kernels of one level. The api.go functions call
// these for float32; float64 runs the reference.
type impl struct {
	level level
	gemm  gemmKernel

	lgamma, digamma, trigamma func(dst, x []float32)
	exp, log                  func(dst, x []float32)

	axpy         func(alpha float32, x, y []float32)
	dot          func(x, y []float32) float32
	axpy64       func(alpha float64, x, y []float64) // nil: the pure-Go loop
	dot64        func(x, y []float64) float64
	scale        func(alpha float32, x []float32)
	addBias      func(c, bias []float32) // one row: c += bias
	addBiasReLU  func(c, bias []float32) // one row: c = relu(c + bias)
	reluBackward func(dy, y []float32)
	addTo        func(dst, x []float32)             // dst += x
	affine       func(c, x []float32, a, b float32) // c = a·(c + x) + b
	stream       func(dst, src []float32)           // copy, bypassing the cache where it can
	adam         func(p, g, m, v []float32, k *adamConsts[float32])
	adam64       func(p, g, m, v []float64, k *adamConsts[float64]) // nil: the scalar loop
	// The baselines' row scores (rows64.go); nil: the pure-Go loops.
	l1Rows     func(dst, tab, q []float64, gamma float64)
	boxRows    func(dst, tab, c, o []float64, cen, gamma float64)
	betaRows   func(dst, psiA, psiB, psiS, ent, lg, a, b []float64, gamma float64)
	coneRows   func(dst, sin, cos, sa, ca, s1, c1, s2, c2, base []float64, cen, mod, gamma float64)
	betaGrad   func(x *BetaGradArgs) int // returns where the scalar tail starts
	coneGrad   func(x *ConeGradArgs) int // returns where the scalar tail starts
	coneHalves func(sin, cos, dAxis, x []float64, rho float64) int
	l1Grad     func(ge, gq, e, q []float64, g float64) int
	// The fast float64 special maps (special64.go); nil: the references.
	lgamma64, digamma64, trigamma64 func(dst, x []float64)
	boxGrad                         func(ge, gc, gO, e, c, o []float64, g, cen float64) int
	above                           func(dst []int32, xs []float32, t float32) []int32 // nil: the pure-Go loop
	countAbove                      func(xs []float32, t float32) int                  // nil: the pure-Go loop
	valuesAbove                     func(dst, xs []float32, t float32) []float32       // nil: CountAboveEach counts over xs
	// bf16 is the bfloat16 micro-kernel (microBF16Go's contract), on
	// AVX512-BF16 or emulated with AVX2 FMAs (bf16Name says which); nil:
	// the pure-Go loop.
	bf16     func(kp int, a, b []uint32, c []float32, ldc int)
	bf16Name string
	// amx is the AMX tile kernel (amxTileGo's contract); nil where the CPU
	// or the OS does not offer the tiles.
	amx func(kb int, a []uint32, lda int, b []uint32, c []float32, ldc int)
	// The packs' bfloat16 rounding (bf16round.go); nil: the scalar loops
	// (roundPanel nil: roundPairs a row at a time, its words scattered).
	roundPairs func(dst []uint32, src []float32) int
	roundRows  func(dst []uint32, lo, hi []float32) int
	roundPanel func(dst []uint32, stride int, a []float32, lda, k int) int

	features     func(f1, f2, xa, xb []float32, lo, hi float32) float32
	featuresGrad func(g1, g2, xa, xb []float32, ge, lo, hi float32)
	sigmoidSum   func(x []float32, nb uint32) float64
	expSum       func(dst, x []float32, ab, nbb uint32) (float64, float64) // lossrow.go
	scaleShift   func(x []float32, ab, nbb uint32)
	sigmoidLoss  func(g, x []float32, cb uint32) float64
	dropout      func(x []float32, thr uint16, scale float32, state *uint64) int // the units done (dropoutRef does the rest); nil: none
}

// goImpl is the pure-Go level: the fallback of every build and CPU. Its
// elementwise maps are the float64 references: in scalar code they beat
// the vector twins (lgamma64 etc.), whose lane masks become unpredictable
// branches, and they are at least as accurate.
var goImpl = impl{
	level:        levelGo,
	gemm:         gemmKernel{mr: 1, nr: 4, micro: microGo1x4, small: &smallGo},
	lgamma:       lgammaRef[float32],
	digamma:      digammaRef[float32],
	trigamma:     trigammaRef[float32],
	exp:          expRef[float32],
	log:          logRef[float32],
	axpy:         axpyGo,
	dot:          dotGo,
	scale:        scaleGo,
	addBias:      addBiasGo,
	addBiasReLU:  addBiasReLUGo,
	reluBackward: reluBackwardGo,
	addTo:        addToGo,
	affine:       affineRef[float32],
	stream:       streamGo,
	adam:         adamRef[float32],
	features:     featuresGo,
	featuresGrad: featuresGradGo,
	sigmoidSum:   sigmoidSumGo,
	expSum:       expSumGo,
	scaleShift:   scaleShiftTwin,
	sigmoidLoss:  sigmoidLossGo,
}

// The names of the bfloat16 micro-kernels (impl.bf16Name).
const (
	bf16AVX512 = "AVX512-BF16"
	bf16AVX2   = "AVX2 FMAs"
)

// impls lists the levels this build and CPU support, best last; cur is the
// one in use. The simd build registers its levels in init.
var (
	impls = []impl{goImpl}
	cur   = goImpl
)

func register(i impl) {
	impls = append(impls, i)
	cur = i
}

// Backend names the instruction-set level the float32 kernels use: "avx512",
// "avx2" or "go".
func Backend() string { return cur.level.String() }

// Describe names the float32 kernels' level and what runs the bfloat16
// products: AMX tiles, AVX512-BF16, AVX2 FMAs, or the Go loop that
// emulates them.
func Describe() string {
	bf16 := "emulated in Go"
	switch {
	case cur.amx != nil:
		bf16 = "AMX tiles"
	case cur.bf16 != nil:
		bf16 = cur.bf16Name
	}
	return cur.level.String() + ", bf16 products: " + bf16
}

// use switches the float32 kernels to level l and returns a function that
// switches back. Tests use it to run every level this CPU supports.
func use(l level) (restore func()) {
	prev := cur
	for _, i := range impls {
		if i.level == l {
			cur = i
		}
	}
	return func() { cur = prev }
}
