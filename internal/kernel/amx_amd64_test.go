//go:build goexperiment.simd

package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestAMXTile: the tile kernel against its specification, on a CPU with
// AMX (skipped elsewhere, saying so).
func TestAMXTile(t *testing.T) {
	if !HasAMX() {
		t.Skip("no AMX tiles on this CPU (or the OS refused them): the tile kernel is tested through its Go twin only (TestAMXDriver)")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, kb := range []int{1, 2, 25} {
		lda := kb*amxWords + 3 // a row stride that is not the row's length
		a := make([]uint32, amxBlock*lda)
		b := make([]uint32, kb*amxWords*bf16Cols)
		for i := range a {
			a[i] = pairBF16(float32(r.NormFloat64()), float32(r.NormFloat64()))
		}
		for i := range b {
			b[i] = pairBF16(float32(r.NormFloat64()), float32(r.NormFloat64()))
		}
		const ldc = amxBlock + 5
		got, want := make([]float32, amxBlock*ldc), make([]float32, amxBlock*ldc)
		for i := range got {
			got[i] = float32(math.NaN()) // overwritten
		}
		want = slices.Clone(got)
		amxTileAsm(kb, a, lda, b, got, ldc)
		amxTileGo(kb, a, lda, b, want, ldc)
		same := 0
		for r := range amxBlock {
			for j := range amxBlock {
				g, w := got[r*ldc+j], want[r*ldc+j]
				if math.Float32bits(g) == math.Float32bits(w) {
					same++
				}
				if d := math.Abs(float64(g - w)); !(d <= 1e-5*float64(kb*amxWords)) {
					t.Fatalf("kb=%d: C[%d][%d] = %g, specification %g", kb, r, j, g, w)
				}
			}
		}
		for r := range amxBlock {
			for j := amxBlock; j < ldc && r < amxBlock-1; j++ {
				if !math.IsNaN(float64(got[r*ldc+j])) {
					t.Fatalf("kb=%d: wrote C[%d][%d] outside the block", kb, r, j)
				}
			}
		}
		t.Logf("kb=%d: %d of %d elements equal to the specification's bits", kb, same, amxBlock*amxBlock)
	}
}

// TestAMXEncoding: the tile kernel's hand-encoded instructions decode, in
// GNU objdump's disassembly of this test binary, to the instructions its
// comments name, in order (the check that runs where the tiles do not).
func TestAMXEncoding(t *testing.T) {
	if testing.Short() {
		t.Skip("links a test binary")
	}
	out := string(listing(t))
	const sym = "<github.com/gammae/gammae/internal/kernel.amxTile.abi0>:"
	i := strings.Index(out, sym)
	if i < 0 {
		t.Fatal("no symbol for amxTile in the listing")
	}
	body, _, _ := strings.Cut(out[i+len(sym):], "\n\n")
	var got []string
	for line := range strings.Lines(body) {
		f := strings.Fields(strings.SplitN(line, "\t", 2)[len(strings.SplitN(line, "\t", 2))-1])
		if len(f) > 0 && (strings.HasPrefix(f[0], "tile") || strings.HasPrefix(f[0], "tdp") || strings.HasPrefix(f[0], "ldtile")) {
			got = append(got, strings.Join(f, " "))
		}
	}
	want := []string{
		"ldtilecfg (%rax)",
		"tilezero %tmm0", "tilezero %tmm1", "tilezero %tmm2", "tilezero %tmm3",
		"tileloadd (%rsi,%rcx,1),%tmm4", "tileloadd (%rbx,%rcx,1),%tmm5",
		"tileloadd (%rdi,%rdx,1),%tmm6", "tileloadd (%rax,%rdx,1),%tmm7",
		"tdpbf16ps %tmm6,%tmm4,%tmm0", "tdpbf16ps %tmm7,%tmm4,%tmm1",
		"tdpbf16ps %tmm6,%tmm5,%tmm2", "tdpbf16ps %tmm7,%tmm5,%tmm3",
		"tilestored %tmm0,(%rsi,%rcx,1)", "tilestored %tmm1,(%rbx,%rcx,1)",
		"tilestored %tmm2,(%rsi,%rcx,1)", "tilestored %tmm3,(%rbx,%rcx,1)",
		"tilerelease",
	}
	if !slices.Equal(got, want) {
		t.Errorf("amxTile disassembles to\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
