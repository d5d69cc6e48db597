package cputime

import (
	"slices"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, in string
		want     Machine
		err      string
	}{
		{"linux 5+", "cpu  100 2 30 400 5 0 6 7 1 0\ncpu0 50 1 15 200 2 0 3 3 0 0\n", Machine{Total: 550, Steal: 7}, ""},
		{"no guest fields", "cpu 1 1 1 1 1 1 1 1\n", Machine{Total: 8, Steal: 1}, ""},
		{"cpu line not first", "intr 5\ncpu 0 0 0 10 0 0 0 0\n", Machine{Total: 10}, ""},
		{"too few", "cpu 1 2 3 4\n", Machine{}, "4 fields"},
		{"not a number", "cpu 1 2 3 4 5 6 7 x\n", Machine{}, `"x" is not a count`},
		{"negative", "cpu 1 2 3 4 5 6 7 -1\n", Machine{}, "not a count"},
		{"no cpu line", "cpu0 1 2 3 4 5 6 7 8\n", Machine{}, "no cpu line"},
		{"empty", "", Machine{}, "no cpu line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestStealShare(t *testing.T) {
	a := Machine{Total: 1000, Steal: 10}
	for _, tc := range []struct {
		to   Machine
		want float64
	}{
		{Machine{Total: 1200, Steal: 60}, 0.25},
		{Machine{Total: 1200, Steal: 10}, 0},
		{a, -1},
		{Machine{Total: 900, Steal: 20}, -1},
	} {
		if got := StealShare(a, tc.to); got != tc.want {
			t.Errorf("StealShare(%+v, %+v) = %v, want %v", a, tc.to, got, tc.want)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("cpu  100 2 30 400 5 0 6 7 1 0\n"))
	f.Add([]byte("cpu 1 2 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseStat(b)
		if err == nil && m.Steal > m.Total {
			t.Fatalf("steal %d > total %d", m.Steal, m.Total)
		}
	})
}

func TestParseCPUInfo(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC   Processor\n\nprocessor\t: 1\nmodel name\t: other\n", "AMD EPYC Processor (family 25 model 17)"},
		{"model name\t: Intel(R) Xeon(R) Platinum 8480+\n", "Intel(R) Xeon(R) Platinum 8480+"},
		{"processor : 0\nBogoMIPS : 50\n", ""},
		{"", ""},
	} {
		if got := ParseCPUInfo([]byte(tc.in)); got != tc.want {
			t.Errorf("ParseCPUInfo(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseCPUFlags(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"processor\t: 0\nflags\t\t: fpu sse2 avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile\n\nprocessor\t: 1\nflags\t\t: fpu\n", []string{"avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"}},
		{"flags\t\t: fpu avx2 fma avx512f avx512_bf16 avx512_fp16x\n", []string{"avx2", "fma", "avx512f", "avx512_bf16"}},
		{"flags : avx512_bf16x amx\n", nil},
		{"model name\t: no flags here\n", nil},
		{"", nil},
	} {
		if got := ParseCPUFlags([]byte(tc.in), SpeedFlags); !slices.Equal(got, tc.want) {
			t.Errorf("ParseCPUFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
