package kernel

// Vector helpers of the model's hot loops, pure-Go level. Their vector twins
// use the same operations in the same order (no fused multiply-add), so all
// levels give identical results; only dot sums in a different order.

func axpyGo(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

func dotGo(x, y []float32) float32 {
	y = y[:len(x)]
	var s float32
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func streamGo(dst, src []float32) { copy(dst, src) }

func scaleGo(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}

func addToGo(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] += v
	}
}

func addBiasGo(c, bias []float32) {
	c = c[:len(bias)]
	for j, b := range bias {
		c[j] += b
	}
}

// relu keeps NaN (v < 0 is false for it) so that a diverging model shows.
func addBiasReLUGo(c, bias []float32) {
	c = c[:len(bias)]
	for j, b := range bias {
		v := c[j] + b
		if v < 0 {
			v = 0
		}
		c[j] = v
	}
}

func reluBackwardGo(dy, y []float32) {
	y = y[:len(dy)]
	for i, v := range y {
		if !(v > 0) {
			dy[i] = 0
		}
	}
}
