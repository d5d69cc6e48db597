package kernel

// Above appends to dst the index of every element of xs greater than t
// (NaN never is) in ascending order, and returns it. Ranking uses it to
// find the few entities that outscore an answer among all of them: the
// vector level compares sixteen scores an instruction and looks at the
// lanes only where one is above.
func Above(dst []int32, xs []float32, t float32) []int32 {
	if len(xs) > 1<<31-1 {
		panic("kernel: Above over more than 2³¹ elements")
	}
	if cur.above != nil {
		defer clearUpper()
		return cur.above(dst, xs, t)
	}
	return aboveGo(dst, xs, t)
}

func aboveGo(dst []int32, xs []float32, t float32) []int32 {
	for i, x := range xs {
		if x > t {
			dst = append(dst, int32(i))
		}
	}
	return dst
}

// CountAbove returns how many elements of xs are greater than t (NaN
// never is).
func CountAbove(xs []float32, t float32) int {
	if cur.countAbove != nil {
		defer clearUpper()
		return cur.countAbove(xs, t)
	}
	return countAboveGo(xs, t)
}

func countAboveGo(xs []float32, t float32) int {
	n := 0
	for _, x := range xs {
		if x > t {
			n++
		}
	}
	return n
}
