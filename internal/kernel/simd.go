//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The archsimd levels, registered when the CPU has them (AVX-512 last, so
// it is preferred).
func init() {
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		register(impl{
			level:        levelAVX2,
			gemm:         gemmKernel{mr: 6, nr: 16, micro: micro6x16AVX2, readsAT: true, packB: packBAVX2, small: &smallAVX2},
			lgamma:       lgammaAVX2,
			digamma:      digammaAVX2,
			trigamma:     trigammaAVX2,
			exp:          expAVX2,
			log:          logAVX2,
			axpy:         axpyAVX2,
			dot:          dotAVX2,
			scale:        scaleAVX2,
			addBias:      addBiasAVX2,
			addBiasReLU:  addBiasReLUAVX2,
			reluBackward: reluBackwardAVX2,
			addTo:        addToAVX2,
			affine:       affineAVX2,
			stream:       copyStreamAVX,
			adam:         adamAVX2,
			adam64:       adam64AVX2,
			axpy64:       axpy64AVX2,
			dot64:        dot64AVX2,
			l1Rows:       l1RowsAVX2,
			boxRows:      boxRowsAVX2,
			betaRows:     betaRowsAVX2,
			coneRows:     coneRowsAVX2,
			betaGrad:     betaGradAVX2,
			coneGrad:     coneGradAVX2,
			coneHalves:   coneHalvesAVX2,
			l1Grad:       l1GradAVX2,
			boxGrad:      boxGradAVX2,
			lgamma64:     lgamma64AVX2,
			digamma64:    digamma64AVX2,
			trigamma64:   trigamma64AVX2,
			above:        aboveAVX2,
			countAbove:   countAboveAVX2,
			features:     featuresAVX2,
			featuresGrad: featuresGradAVX2,
			sigmoidSum:   sigmoidSumAVX2,
			expSum:       expSumAVX2,
			scaleShift:   scaleShiftAVX2,
			sigmoidLoss:  sigmoidLossAVX2,
			bf16:         microBF16AVX2,
			bf16Name:     bf16AVX2,
			roundPairs:   roundPairsAVX2,
			roundRows:    roundRowsAVX2,
		})
	}
	if archsimd.X86.AVX512() {
		avx512 := impl{
			level:        levelAVX512,
			gemm:         gemmKernel{mr: 8, nr: 32, micro: micro8x32AVX512, half: micro8x16AVX512, readsAT: true, packB: packBAVX512, small: &smallAVX512},
			lgamma:       lgammaAVX512,
			digamma:      digammaAVX512,
			trigamma:     trigammaAVX512,
			exp:          expAVX512,
			log:          logAVX512,
			axpy:         axpyAVX512,
			dot:          dotAVX512,
			axpy64:       axpy64AVX512,
			dot64:        dot64AVX512,
			scale:        scaleAVX512,
			addBias:      addBiasAVX512,
			addBiasReLU:  addBiasReLUAVX512,
			reluBackward: reluBackwardAVX512,
			addTo:        addToAVX512,
			affine:       affineAVX512,
			stream:       copyStreamAVX,
			adam:         adamAVX512,
			adam64:       adam64AVX512,
			l1Rows:       l1RowsAVX512,
			boxRows:      boxRowsAVX512,
			betaRows:     betaRowsAVX512,
			coneRows:     coneRowsAVX512,
			betaGrad:     betaGradAVX512,
			coneGrad:     coneGradAVX512,
			coneHalves:   coneHalvesAVX512,
			l1Grad:       l1GradAVX512,
			lgamma64:     lgamma64AVX512,
			digamma64:    digamma64AVX512,
			trigamma64:   trigamma64AVX512,
			boxGrad:      boxGradAVX512,
			above:        aboveAVX512,
			countAbove:   countAboveAVX512,
			valuesAbove:  valuesAboveAVX512,
			roundPairs:   roundPairsAVX512,
			roundRows:    roundRowsAVX512,
			roundPanel:   roundPanelAVX512,
			features:     featuresAVX512,
			featuresGrad: featuresGradAVX512,
			sigmoidSum:   sigmoidSumAVX512,
			expSum:       expSumAVX512,
			scaleShift:   scaleShiftAVX512,
			sigmoidLoss:  sigmoidLossAVX512,
			dropout:      dropoutAVX512,
		}
		avx512.bf16, avx512.bf16Name = microBF16AVX2, bf16AVX2
		if hasAVX512BF16() {
			avx512.bf16, avx512.bf16Name = microBF16AVX512, bf16AVX512
		}
		if hasAMX() {
			avx512.amx = amxTileAsm
		}
		register(avx512)
	}
}

// clearUpper clears the upper halves of the vector registers after a
// kernel: without it every scalar float loop of Go code that runs next on
// that thread pays for false dependencies (measured 6× slower).
func clearUpper() { archsimd.ClearAVXUpperBits() }
