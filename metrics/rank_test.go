package metrics

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var nan = float32(math.NaN())

func TestFilteredRanks(t *testing.T) {
	//             0    1    2    3    4    5
	six := []float32{0.9, 0.5, 0.7, 0.1, 0.7, 0.3}
	twelve := []float32{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	tests := []struct {
		name       string
		scores     []float32
		hard, easy []int32
		want       []int
	}{
		// Entity 4 ties with 2 and does not count; easy 0 above is ignored.
		{"tie does not count, easy above ignored", six, []int32{2}, []int32{0}, []int{1}},
		// Without the easy filter, 0 (0.9) beats 2.
		{"no easy answers", six, []int32{2}, nil, []int{2}},
		// 5 (0.3) is beaten by non-answers 1 (0.5) and 4 (0.7), not by the
		// answers 0 and 2.
		{"two hard answers", six, []int32{5, 2}, []int32{0}, []int{3, 1}},
		{"hard answer at the bottom", six, []int32{3}, []int32{0}, []int{5}},
		{"all answers", six, []int32{0, 1, 2, 3, 4, 5}, nil, []int{1, 1, 1, 1, 1, 1}},
		{"easy overlapping hard, duplicated easy", six, []int32{5}, []int32{5, 0, 0}, []int{4}},
		{"rank 10 and 11", twelve, []int32{9, 10}, nil, []int{10, 10}},
		{"rank 11", twelve, []int32{10}, nil, []int{11}},
		{"rank 11 with easy above", twelve, []int32{10}, []int32{0}, []int{10}},
		{"no hard answers", six, nil, []int32{1}, []int{}},
		// NaN hard answer: every numeric non-answer beats it (3 of them);
		// NaN non-answer: beats nobody, not even a NaN answer.
		{"NaN hard answer", []float32{0.1, nan, -1, nan, float32(math.Inf(-1))}, []int32{1}, nil, []int{4}},
		{"NaN non-answer", []float32{nan, 0.5, 0.2}, []int32{2}, nil, []int{2}},
		{"NaN and numeric answers", []float32{nan, 0.5, 0.2, 0.9}, []int32{0, 2}, nil, []int{3, 3}},
		{"-Inf hard answer", []float32{float32(math.Inf(-1)), float32(math.Inf(-1)), 0}, []int32{0}, nil, []int{2}},
		{"all NaN", []float32{nan, nan, nan}, []int32{1}, nil, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FilteredRanks(tc.scores, tc.hard, tc.easy)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ranks %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFilteredRanksErrors(t *testing.T) {
	s := []float32{1, 2, 3}
	tests := []struct {
		name       string
		hard, easy []int32
		want       string
	}{
		{"hard out of range", []int32{3}, nil, "answer 3 out of range [0, 3)"},
		{"negative easy", []int32{0}, []int32{-1}, "answer -1 out of range"},
		{"duplicate hard", []int32{1, 2, 1}, nil, "hard answer 1 listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FilteredRanks(s, tc.hard, tc.easy)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Evaluate(s, nil, nil); err == nil {
		t.Error("Evaluate with no hard answers succeeded")
	}
}

// naiveRanks is the definition, written out.
func naiveRanks(scores []float32, hard, easy []int32) []int {
	isAnswer := map[int32]bool{}
	for _, e := range append(append([]int32{}, hard...), easy...) {
		isAnswer[e] = true
	}
	beats := func(s, h float32) bool { // s strictly above h, NaN lowest
		switch {
		case isNaN(s):
			return false
		case isNaN(h):
			return true
		}
		return s > h
	}
	ranks := make([]int, len(hard))
	for i, a := range hard {
		ranks[i] = 1
		for e, s := range scores {
			if !isAnswer[int32(e)] && beats(s, scores[a]) {
				ranks[i]++
			}
		}
	}
	return ranks
}

func TestFilteredRanksMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := 1 + rng.IntN(60)
		if trial%10 == 0 {
			n = 200 + rng.IntN(400) // more hard answers than fewHard
		}
		scores := make([]float32, n)
		for i := range scores {
			switch rng.IntN(10) {
			case 0:
				scores[i] = nan
			case 1:
				scores[i] = float32(math.Inf(2*rng.IntN(2) - 1))
			default:
				scores[i] = float32(rng.IntN(8)) // many ties
			}
		}
		perm := rng.Perm(n)
		nh := rng.IntN(n + 1)
		ne := rng.IntN(n - nh + 1)
		hard := make([]int32, nh)
		easy := make([]int32, ne)
		for i := range hard {
			hard[i] = int32(perm[i])
		}
		for i := range easy {
			easy[i] = int32(perm[nh+i])
		}
		got, err := FilteredRanks(scores, hard, easy)
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveRanks(scores, hard, easy); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: scores %v hard %v easy %v: ranks %v, want %v", trial, scores, hard, easy, got, want)
		}
	}
}

func TestEvaluate(t *testing.T) {
	six := []float32{0.9, 0.5, 0.7, 0.1, 0.7, 0.3}
	// Ranks 3 and 1: MRR (1/3 + 1)/2, H@1 1/2, H@3 and H@10 1.
	got, err := Evaluate(six, []int32{5, 2}, []int32{0})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{MRR: 2.0 / 3, Hits1: 0.5, Hits3: 1, Hits10: 1}
	if !close(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Ranks 1, 4, 11: MRR (1 + 1/4 + 1/11)/3 = 59/132.
	got, err = FromRanks([]int{1, 4, 11})
	if err != nil {
		t.Fatal(err)
	}
	want = Result{MRR: 59.0 / 132, Hits1: 1.0 / 3, Hits3: 1.0 / 3, Hits10: 2.0 / 3}
	if !close(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := FromRanks([]int{0}); err == nil {
		t.Error("rank 0 accepted")
	}
}

func close(a, b Result) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	return eq(a.MRR, b.MRR) && eq(a.Hits1, b.Hits1) && eq(a.Hits3, b.Hits3) && eq(a.Hits10, b.Hits10)
}

func BenchmarkFilteredRanks(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	scores := make([]float32, 14505) // FB15k-237 entities
	for i := range scores {
		scores[i] = rng.Float32()
	}
	for _, na := range []int{1, 10, 100, 1000} {
		perm := rng.Perm(len(scores))
		hard := make([]int32, na)
		easy := make([]int32, na)
		for i := range na {
			hard[i], easy[i] = int32(perm[i]), int32(perm[na+i])
		}
		b.Run("answers="+strconv.Itoa(na), func(b *testing.B) {
			for b.Loop() {
				FilteredRanks(scores, hard, easy)
			}
		})
	}
}
