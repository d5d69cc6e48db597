package qe

import (
	"math"
	"strings"
	"testing"
)

// TestLossGradients checks both batch losses' gradients against central
// differences of the loss in every logit.
func TestLossGradients(t *testing.T) {
	pos := []float64{1.5, -0.3, 4}
	neg := [][]float64{{0.2, 2.1}, {-1, 0.5, 3}, {6}}
	w := []float64{0.5, 0.25, 1}
	losses := []struct {
		name string
		o    Objective
	}{{"sigmoid", Objective{}}, {"softmax", Objective{Kind: "softmax"}}, {"softmax T=0.5", Objective{Kind: "softmax", Temperature: 0.5}}}
	for _, tc := range losses {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.o.Func()
			if err != nil {
				t.Fatal(err)
			}
			_, dpos, dneg, err := f(pos, neg, w)
			if err != nil {
				t.Fatal(err)
			}
			at := func(x *float64) float64 {
				const h = 1e-6
				v := *x
				*x = v + h
				up, _, _, _ := f(pos, neg, w)
				*x = v - h
				down, _, _, _ := f(pos, neg, w)
				*x = v
				return (up.Loss - down.Loss) / (2 * h)
			}
			for r := range pos {
				if want := at(&pos[r]); math.Abs(dpos[r]-want) > 1e-7 {
					t.Errorf("d loss / d pos[%d] = %.9g, finite differences %.9g", r, dpos[r], want)
				}
				for j := range neg[r] {
					if want := at(&neg[r][j]); math.Abs(dneg[r][j]-want) > 1e-7 {
						t.Errorf("d loss / d neg[%d][%d] = %.9g, finite differences %.9g", r, j, dneg[r][j], want)
					}
				}
			}
		})
	}
}

// TestSoftmaxLossValue: equal logits give ln(candidates) per row, and the
// loss is the weighted mean of the rows'.
func TestSoftmaxLossValue(t *testing.T) {
	l, _, _, err := SoftmaxLoss([]float64{2, 7}, [][]float64{{2, 2, 2}, {7}}, []float64{1, 3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := (1*math.Log(4) + 3*math.Log(2)) / 4
	if math.Abs(l.Loss-want) > 1e-12 || l.Positive != l.Loss || l.Negative != l.Loss {
		t.Errorf("loss %+v, want %g in all three", l, want)
	}
}

func TestLossErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"unknown objective", func() error { _, err := Objective{Kind: "focal"}.Func(); return err }, `loss "focal": the baselines train with sigmoid`},
		{"row without negatives", func() error {
			_, _, _, err := SoftmaxLoss([]float64{1}, [][]float64{{}}, []float64{1}, 1)
			return err
		}, "row 0 has no negatives"},
		{"zero weight", func() error { _, _, _, err := BatchLoss([]float64{1}, [][]float64{{0}}, []float64{0}); return err }, "weight 0 is 0"},
		{"bad temperature", func() error {
			_, _, _, err := SoftmaxLoss([]float64{1}, [][]float64{{0}}, []float64{1}, -1)
			return err
		}, "temperature -1"},
	} {
		if err := tc.err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
