package calibrate

import (
	"math"

	"github.com/gammae/gammae/internal/kernel"
)

// MaxShift bounds the logit shifts CountShift returns: a row whose count
// is not reached within ±MaxShift (every entity an answer, or a row of
// −∞) gets the bound.
const MaxShift = 100

// CountShift returns the shift b of every logit that makes a query's
// estimate Σ σ(logit + b) equal its answer count n (to 1e-4 in log count,
// or to 1e-4 in b): the calibration one query asks for. The median of the
// queries' shifts makes the median ratio of estimate to count 1, since
// each estimate grows with b.
//
// It solves h(b) = log Σσ(l+b) − log n = 0. h rises with slope
// Σσ(1−σ)/Σσ ≤ 1, close to 1 where the row's terms are small (the
// common case: few answers among many entities), so the first step
// b − h(b) lands near the root and never passes it; secant steps follow,
// kept inside the bracket once there is one, bisection when they leave it.
func CountShift(row []float32, n float64) float64 {
	if n <= 0 || len(row) == 0 {
		return math.NaN()
	}
	if n >= float64(len(row)) {
		return MaxShift
	}
	logN := math.Log(n)
	h := func(b float64) float64 {
		s := kernel.SigmoidSum(row, float32(b))
		if s <= 0 {
			return math.Inf(-1)
		}
		return math.Log(s) - logN
	}
	lo, hi := math.Inf(-1), math.Inf(1) // h(lo) < 0 < h(hi)
	var hLo, hHi float64
	b, hb := 0.0, h(0)
	prev, hPrev := math.NaN(), math.NaN()
	for range 60 {
		if math.Abs(hb) < 1e-4 {
			return b
		}
		if hb < 0 {
			lo, hLo = b, hb
		} else {
			hi, hHi = b, hb
		}
		if hi-lo < 1e-4 {
			return b
		}
		var next float64
		switch {
		case math.IsInf(hb, -1): // every term underflowed: far below
			next = b + 30
		case !math.IsNaN(prev) && hb != hPrev && !math.IsInf(hPrev, 0):
			next = b - hb*(b-prev)/(hb-hPrev)
		default:
			next = b - hb
		}
		if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && (next <= lo || next >= hi || math.IsNaN(next)) {
			next = lo + (hi-lo)/2
			// Regula falsi on the bracket converges faster than halving
			// when h is smooth; halving guards against a stalled side.
			if f := lo - hLo*(hi-lo)/(hHi-hLo); f > lo && f < hi && math.Abs(f-next) < (hi-lo)/4 {
				next = f
			}
		}
		if next <= -MaxShift && b <= -MaxShift || next >= MaxShift && b >= MaxShift {
			return b
		}
		next = max(-MaxShift, min(MaxShift, next))
		prev, hPrev = b, hb
		b, hb = next, h(next)
	}
	return b
}
