package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gammae/gammae/dataset"
)

// Part is the share of one structure in a training batch: query rows of a
// group with their slot ids, one positive answer each, n negatives each and
// its loss weight (the subsampling weight sqrt(1/(4+|answers|)), or 1 with
// the stream's UniformWeights).
type Part struct {
	Group    *dataset.Group
	Rows     []int
	IDs      []int32 // len(Rows) × Group.Slots
	Positive []int32 // len(Rows)
	Negative []int32 // len(Rows) × negatives
	Weight   []float64
}

// Batch is a training batch grouped by structure, in a fixed group order.
// Positive, Negative and Weight are those of all parts in order (a part's
// are slices of them), as gamma.Batch takes them. With shared negatives,
// Negative is empty and Shared holds the batch's.
type Batch struct {
	Parts    []*Part
	Positive []int32
	Negative []int32
	Shared   []int32
	Weight   []float64
	// Exclude holds each row's training answers when the stream's
	// ExcludeAnswers is set (slices of the dataset: read only).
	Exclude [][]int32
}

// Size is the number of queries in the batch.
func (b *Batch) Size() int {
	n := 0
	for _, p := range b.Parts {
		n += len(p.Rows)
	}
	return n
}

type ref struct{ group, row int32 }

// Stream draws batches from a set of training groups, visiting the queries
// in a fresh random order every epoch, like a shuffled data loader. The
// order of epoch k depends only on (seed, k), so a stream resumes exactly
// from its StreamState.
type Stream struct {
	groups    []*dataset.Group
	refs      []ref
	seed      uint64
	state     StreamState
	entities  int
	negatives int
	// refNegatives reproduces the reference code, whose exclusion of
	// answers from the negatives never matches.
	refNegatives bool
	// SharedNegatives: each batch gets one set of negatives for all its
	// rows (Batch.Shared; the loss "shared"), drawn uniformly from all
	// entities (a row's answers among them are not excluded), instead of
	// negatives per row.
	SharedNegatives bool
	// ExcludeAnswers: each batch lists its rows' answers (Batch.Exclude),
	// for the losses that score rows against common candidates.
	ExcludeAnswers bool
	// UniformWeights gives every row the loss weight 1 instead of the
	// reference's subsampling weight sqrt(1/(4+|answers|)), which makes a
	// query with hundreds of answers (most negation and union queries)
	// count a sixth to an eighth of one with a few.
	UniformWeights bool
	// Hard holds each group's hard negatives (nil for a group without):
	// a row draws its set's PerRow of them into its negatives, the first
	// of its own, or of the batch's shared ones, which hard draws fill
	// before uniform ones up to the same count (Config.HardNegatives), or,
	// for an Extra set, appended to the shared ones after them
	// (Config.HardIntersections).
	Hard []*HardSet
}

// StreamState is where a stream is: its epoch and position in it.
type StreamState struct {
	Epoch uint64 `json:"epoch"`
	Pos   int    `json:"pos"`
}

// NewStream returns a stream over the queries of groups (none may be
// empty), each visited weights[i] times per epoch (nil: once; see
// weightedRows). Negatives are drawn uniformly from [0, entities)
// excluding the query's training answers unless includeAnswers is set.
func NewStream(groups []*dataset.Group, weights []float64, entities, negatives int, includeAnswers bool, seed uint64) *Stream {
	s := &Stream{groups: groups, entities: entities, negatives: negatives, refNegatives: includeAnswers, seed: seed}
	for gi, g := range groups {
		w := 1.0
		if weights != nil {
			w = weights[gi]
		}
		for _, r := range weightedRows(g.Len(), w, seed+uint64(gi)) {
			s.refs = append(s.refs, ref{int32(gi), r})
		}
	}
	s.shuffle()
	return s
}

// Len is the number of queries the stream cycles over.
func (s *Stream) Len() int { return len(s.refs) }

// State returns the stream's position.
func (s *Stream) State() StreamState { return s.state }

// SetState moves the stream to a saved position.
func (s *Stream) SetState(st StreamState) error {
	if st.Pos < 0 || st.Pos > len(s.refs) {
		return fmt.Errorf("stream position %d out of range [0,%d]", st.Pos, len(s.refs))
	}
	s.state = st
	s.shuffle()
	return nil
}

// shuffle lays out the order of the current epoch.
func (s *Stream) shuffle() {
	// Back to the canonical order, then this epoch's permutation of it.
	slices.SortFunc(s.refs, func(a, b ref) int {
		if a.group != b.group {
			return int(a.group - b.group)
		}
		return int(a.row - b.row)
	})
	rng := rand.New(rand.NewPCG(s.seed, s.state.Epoch))
	rng.Shuffle(len(s.refs), func(i, j int) { s.refs[i], s.refs[j] = s.refs[j], s.refs[i] })
}

// Next draws the next batch of size n; positives and negatives come from
// rng.
func (s *Stream) Next(n int, rng *rand.Rand) *Batch {
	picked := make([]ref, 0, n)
	for len(picked) < n {
		if s.state.Pos == len(s.refs) {
			s.state.Epoch++
			s.state.Pos = 0
			s.shuffle()
		}
		picked = append(picked, s.refs[s.state.Pos])
		s.state.Pos++
	}
	// Group by structure in group order so batches are deterministic.
	slices.SortStableFunc(picked, func(a, b ref) int { return int(a.group - b.group) })
	perRow := s.negatives
	if s.SharedNegatives {
		perRow = 0
	}
	var extra []int32 // shared negatives beyond the stream's count
	b := &Batch{
		Positive: make([]int32, 0, n),
		Negative: make([]int32, 0, n*perRow),
		Weight:   make([]float64, 0, n),
	}
	for i := 0; i < len(picked); {
		j := i
		for j < len(picked) && picked[j].group == picked[i].group {
			j++
		}
		g := s.groups[picked[i].group]
		p := &Part{Group: g, Rows: make([]int, 0, j-i), IDs: make([]int32, 0, (j-i)*g.Slots)}
		p0, n0, w0 := len(b.Positive), len(b.Negative), len(b.Weight)
		var hard *HardSet
		if s.Hard != nil {
			hard = s.Hard[picked[i].group]
		}
		for _, r := range picked[i:j] {
			row := int(r.row)
			ans := g.Answers(row)
			p.Rows = append(p.Rows, row)
			p.IDs = append(p.IDs, g.Row(row)...)
			b.Positive = append(b.Positive, ans[rng.IntN(len(ans))])
			b.Weight = append(b.Weight, s.weight(len(ans)))
			if s.ExcludeAnswers {
				b.Exclude = append(b.Exclude, ans)
			}
			if !s.SharedNegatives {
				b.Negative = s.appendNegatives(b.Negative, ans, rng)
			}
			if hard != nil {
				extra = s.drawHard(b, extra, hard, row, rng)
			}
		}
		p.Positive, p.Negative, p.Weight = b.Positive[p0:], b.Negative[n0:], b.Weight[w0:]
		b.Parts = append(b.Parts, p)
		i = j
	}
	if s.SharedNegatives {
		for len(b.Shared) < s.negatives {
			b.Shared = append(b.Shared, int32(rng.IntN(s.entities)))
		}
		b.Shared = append(b.Shared, extra...)
	}
	return b
}

// drawHard puts h.PerRow draws from row's hard negatives among its
// negatives: over the first ones of the row just appended, or appended to
// the batch's shared negatives while they number fewer than the stream's
// negatives, or, for an Extra set, to extra, which it returns.
func (s *Stream) drawHard(b *Batch, extra []int32, h *HardSet, row int, rng *rand.Rand) []int32 {
	hard := h.Row(row)
	if len(hard) == 0 {
		return extra
	}
	switch {
	case !s.SharedNegatives:
		neg := b.Negative[len(b.Negative)-s.negatives:]
		for k := range min(h.PerRow, s.negatives) {
			neg[k] = hard[rng.IntN(len(hard))]
		}
	case h.Extra:
		for range h.PerRow {
			extra = append(extra, hard[rng.IntN(len(hard))])
		}
	default:
		for range h.PerRow {
			if len(b.Shared) == s.negatives {
				break
			}
			b.Shared = append(b.Shared, hard[rng.IntN(len(hard))])
		}
	}
	return extra
}

// weight is the loss weight of a row with n answers.
func (s *Stream) weight(n int) float64 {
	if s.UniformWeights {
		return 1
	}
	return math.Sqrt(1 / (4 + float64(n)))
}

func (s *Stream) appendNegatives(dst, answers []int32, rng *rand.Rand) []int32 {
	// With almost all entities answers, rejection would spin: fall back to
	// allowing answers (the reference's behaviour) for such rare queries.
	exclude := !s.refNegatives && len(answers) < s.entities/2
	for k := 0; k < s.negatives; k++ {
		for {
			e := int32(rng.IntN(s.entities))
			if exclude && contains(answers, e) {
				continue
			}
			dst = append(dst, e)
			break
		}
	}
	return dst
}

// contains reports whether the sorted list a holds x: a binary search whose
// steps are arithmetic instead of branches, which on random candidates
// were mispredicted half the time (sampling 128 negatives for each of a
// batch's queries spent a third of its time in slices.BinarySearch).
func contains(a []int32, x int32) bool {
	n := len(a)
	if n == 0 {
		return false
	}
	base := 0
	for n > 1 {
		half := n / 2
		// base += half where a[base+half] ≤ x, by a mask: the compiler
		// keeps the if form as a branch.
		d := int64(x) - int64(a[base+half])
		base += half & int(^(d >> 63))
		n -= half
	}
	return a[base] == x
}
