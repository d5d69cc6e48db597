//go:build goexperiment.simd && amd64

package kernel

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestNoLegacySSEInVectorCode disassembles this test binary and fails on any
// legacy (non-VEX) SSE instruction that runs while the upper halves of the
// vector registers may be dirty: after a ymm/zmm instruction of the same
// function and before the next vzeroupper. On Sapphire Rapids class hosts
// each such instruction costs a microcode assist (measured: a scalar math.Exp
// loop 130× slower with dirty uppers), which made the AVX-512 features
// kernel slower than its pure-Go twin. The scan is linear in address order,
// so a legacy instruction at the top of a loop whose vector work comes later
// in the listing escapes it; the benchmarks' per-host ratios cover that.
//
// Go's own objdump cannot decode EVEX, so this needs GNU objdump (binutils);
// it says it skipped when that is missing. The binary `go test` runs has no
// symbol table, so the scan links one with `go test -c`.
func TestNoLegacySSEInVectorCode(t *testing.T) {
	if testing.Short() {
		t.Skip("links a test binary")
	}
	out := listing(t)
	const prefix = "github.com/gammae/gammae/internal/kernel."
	if !bytes.Contains(out, []byte("<"+prefix+"featuresAVX512>:")) {
		t.Fatal("no symbol for featuresAVX512 in the listing of the test binary")
	}
	var bad []string
	for _, b := range legacySSEInVectorCode(out, prefix) {
		if !allowedLegacySSE(b) {
			bad = append(bad, b)
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Logf("%d legacy SSE instructions in vector regions; move scalar work behind clearUpper or express it with vectors", len(bad))
	}
}

// listing returns GNU objdump's disassembly of this package's test binary
// (linked once per test process, with its symbol table), or skips the test
// when objdump is missing.
func listing(t *testing.T) []byte {
	t.Helper()
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("GNU objdump (binutils) not found: the disassembly checks are skipped")
	}
	listingOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kernel-listing")
		if err != nil {
			listingErr = err
			return
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "kernel.test")
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if msg, err := exec.Command(gobin, "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
			listingErr = fmt.Errorf("go test -c: %v\n%s", err, msg)
			return
		}
		listingOut, listingErr = exec.Command(objdump, "-d", "--no-show-raw-insn", bin).Output()
	})
	if listingErr != nil {
		t.Fatal(listingErr)
	}
	return listingOut
}

var (
	listingOnce sync.Once
	listingOut  []byte
	listingErr  error
)

// allowedLegacySSE lets through the tests' own code.
func allowedLegacySSE(b string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(b, "github.com/gammae/gammae/internal/kernel."), ":")
	for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// legacySSEInVectorCode scans a GNU objdump listing and returns a line per
// offending instruction of the functions whose names begin with prefix.
func legacySSEInVectorCode(listing []byte, prefix string) []string {
	var bad []string
	var fn string
	dirty, inPrologue := false, false
	sinceExit := 0 // len(bad) at the function's last ret or jmp
	sc := bufio.NewScanner(bytes.NewReader(listing))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, " <"); i > 0 && strings.HasSuffix(line, ">:") {
			fn, dirty, inPrologue, sinceExit = line[i+2:len(line)-2], false, false, len(bad)
			if !strings.HasPrefix(fn, prefix) {
				fn = ""
			}
			continue
		}
		if fn == "" {
			continue
		}
		// "  53dc68:\tvmovss 0xa95d8(%rip),%xmm2   # comment"
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 2 {
			continue
		}
		insn := strings.TrimSpace(f[len(f)-1])
		if i := strings.Index(insn, "#"); i >= 0 {
			insn = insn[:i]
		}
		mnem, ops, _ := strings.Cut(insn, " ")
		switch {
		case inPrologue:
		case mnem == "call" && strings.Contains(ops, "<runtime.morestack"):
			// The stack-growth block placed after the body runs at entry,
			// on clean halves: drop its argument spills, and skip its reloads.
			bad, inPrologue = bad[:sinceExit], true
		case mnem == "ret" || mnem == "jmp":
			sinceExit = len(bad)
		case mnem == "vzeroupper" || mnem == "vzeroall":
			dirty = false
		case strings.Contains(ops, "%ymm") || strings.Contains(ops, "%zmm"):
			dirty = true
		case dirty && strings.Contains(ops, "%xmm") && !strings.HasPrefix(mnem, "v"):
			bad = append(bad, fn+": "+strings.TrimSpace(f[0])+" "+insn)
		}
	}
	return bad
}

func TestLegacySSEScanner(t *testing.T) {
	const listing = `
0000000000401000 <github.com/x/kernel.clean>:
  401000:	movss  %xmm0,0x8(%rsp)
  401006:	vmovups (%rax),%zmm1
  40100c:	vzeroupper
  40100f:	addss  %xmm1,%xmm0
0000000000402000 <github.com/x/kernel.bad>:
  402000:	vaddps %zmm1,%zmm2,%zmm3
  402006:	movups (%rcx),%xmm14
  40200a:	vmovss %xmm1,(%rax)
  402010:	ret
  402011:	movss  %xmm0,0x80(%rsp)
  402019:	call   401000 <runtime.morestack_noctxt.abi0>
  40201e:	movss  0x80(%rsp),%xmm0
  402027:	jmp    402000 <github.com/x/kernel.bad>
0000000000403000 <github.com/x/other.ignored>:
  403000:	vaddps %ymm1,%ymm2,%ymm3
  403006:	xorps  %xmm1,%xmm1
`
	got := legacySSEInVectorCode([]byte(listing), "github.com/x/kernel.")
	if len(got) != 1 || !strings.Contains(got[0], "kernel.bad: 402006: movups (%rcx),%xmm14") {
		t.Fatalf("scanner found %q, want the one movups of kernel.bad", got)
	}
}
