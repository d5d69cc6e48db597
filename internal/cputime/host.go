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
