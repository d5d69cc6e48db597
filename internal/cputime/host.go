package cputime

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// CPUModel names this machine's processor from /proc/cpuinfo, e.g. "AMD
// EPYC (family 25 model 17)", or "" where there is none (not Linux).
// Virtual machines often report a bare brand, so the family and model
// numbers are kept: they tell Zen 4 from Zen 3, Sapphire from Ice Lake.
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	return ParseCPUInfo(b)
}

// ParseCPUInfo reads the first processor's "model name", "cpu family" and
// "model" fields of a /proc/cpuinfo.
func ParseCPUInfo(b []byte) string {
	var name, family, model string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if line == "" && name != "" {
			break // the end of the first processor's block
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "model name":
			name = strings.Join(strings.Fields(v), " ")
		case "cpu family":
			family = v
		case "model":
			model = v
		}
	}
	switch {
	case name == "":
		return ""
	case family == "" || model == "":
		return name
	}
	return fmt.Sprintf("%s (family %s model %s)", name, family, model)
}

// SpeedFlags are the CPUID flags that decide gammae's kernels and their
// speed: the vector levels, bfloat16 dot products and the AMX tiles.
var SpeedFlags = []string{"avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"}

// CPUFlags returns which of SpeedFlags this machine's /proc/cpuinfo lists,
// in SpeedFlags' order (nil where there is none).
func CPUFlags() []string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil
	}
	return ParseCPUFlags(b, SpeedFlags)
}

// ParseCPUFlags returns which of want the first processor's "flags" line
// of a /proc/cpuinfo lists, in want's order.
func ParseCPUFlags(b []byte, want []string) []string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20) // a flags line runs to a few KB
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != "flags" {
			continue
		}
		have := map[string]bool{}
		for _, f := range strings.Fields(v) {
			have[f] = true
		}
		var out []string
		for _, f := range want {
			if have[f] {
				out = append(out, f)
			}
		}
		return out
	}
	return nil
}
