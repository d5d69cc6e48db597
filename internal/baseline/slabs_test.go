package baseline

import "testing"

func TestSlabs(t *testing.T) {
	var s Slabs
	a := s.Get(4)
	if len(a) != 4 {
		t.Fatalf("Get(4) has length %d", len(a))
	}
	a[0] = 7
	s.Put(a, nil)
	if b := s.Get(3); len(b) != 3 || &b[0] == &a[0] {
		t.Fatalf("Get(3) returned the length-4 slab")
	}
	if b := s.Get(4); &b[0] != &a[0] {
		t.Fatalf("Get(4) did not reuse the free slab")
	}
	if b := s.Get(4); &b[0] == &a[0] {
		t.Fatalf("a slab was handed out twice")
	}
}
