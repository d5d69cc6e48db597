package answer

import (
	"container/heap"
	"sort"
)

// TopK returns the indices of the k largest scores, best first; ties are
// broken by the smaller index. NaN scores never make the list.
func TopK(scores []float32, k int) []int32 {
	if k <= 0 {
		return nil
	}
	h := &minHeap{scores: scores}
	var th float32 // the root's score once the heap is full
	for i, s := range scores {
		if len(h.ids) == k {
			// One comparison rejects most scores (and NaN); a tie with
			// the root is decided by index.
			if !(s >= th) || s == th && int32(i) > h.ids[0] {
				continue
			}
			h.ids[0] = int32(i)
			heap.Fix(h, 0)
			th = scores[h.ids[0]]
			continue
		}
		if s != s {
			continue
		}
		heap.Push(h, int32(i))
		if len(h.ids) == k {
			th = scores[h.ids[0]]
		}
	}
	out := h.ids
	sort.Slice(out, func(a, b int) bool { return better(scores, out[a], out[b]) })
	return out
}

func better(s []float32, a, b int32) bool {
	if s[a] != s[b] {
		return s[a] > s[b]
	}
	return a < b
}

// minHeap keeps the worst of the current top k at the root.
type minHeap struct {
	scores []float32
	ids    []int32
}

func (h *minHeap) Len() int           { return len(h.ids) }
func (h *minHeap) Less(i, j int) bool { return better(h.scores, h.ids[j], h.ids[i]) }
func (h *minHeap) Swap(i, j int)      { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *minHeap) Push(x any)         { h.ids = append(h.ids, x.(int32)) }
func (h *minHeap) Pop() any {
	x := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return x
}
