package kernel

// Dropout zeroes each unit of x with probability p (in [0, 1), rounded to
// 1/65,536) and scales the others by 1/(1−p), so that the expectation is
// x's; it returns that scale. The units' draws are 16 bits each from a
// splitmix64 stream at *state (four units a draw, lowest bits first), which
// it advances: one state gives one mask on every level.
func Dropout[T Float](x []T, p float64, state *uint64) T {
	thr := uint16(p * 65536) // a unit drops when its draw is below thr
	scale := T(65536 / float64(65536-int(thr)))
	if x32, ok := any(x).([]float32); ok && cur.dropout != nil {
		n := cur.dropout(x32, thr, float32(scale), state)
		clearUpper()
		x = x[n:]
	}
	dropoutRef(x, thr, scale, state)
	return scale
}

// golden is splitmix64's increment.
const golden = 0x9e3779b97f4a7c15

// splitmix64 is the output function of the stream at state s.
func splitmix64(s uint64) uint64 {
	s = (s ^ s>>30) * 0xbf58476d1ce4e5b9
	s = (s ^ s>>27) * 0x94d049bb133111eb
	return s ^ s>>31
}

// dropoutRef is Dropout's specification, and the loop of every level
// without a vector kernel.
func dropoutRef[T Float](x []T, thr uint16, scale T, state *uint64) {
	var bits uint64
	for i := range x {
		if i&3 == 0 {
			*state += golden
			bits = splitmix64(*state)
		}
		if uint16(bits) < thr {
			x[i] = 0
		} else {
			x[i] *= scale
		}
		bits >>= 16
	}
}
