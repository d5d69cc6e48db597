package cputime

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Machine is the machine-wide CPU time of /proc/stat's "cpu" line, in
// clock ticks: all of it, and the part the hypervisor gave to other
// guests while this one had work (steal).
type Machine struct {
	Total, Steal uint64
}

// ReadMachine reads /proc/stat; ok is false where there is none (not
// Linux) or it cannot be parsed.
func ReadMachine() (m Machine, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Machine{}, false
	}
	m, err = ParseStat(b)
	return m, err == nil
}

// StealShare is the share of the machine's CPU time stolen between two
// readings, in [0, 1], or −1 when nothing elapsed.
func StealShare(from, to Machine) float64 {
	if to.Total <= from.Total || to.Steal < from.Steal {
		return -1
	}
	return float64(to.Steal-from.Steal) / float64(to.Total-from.Total)
}

// ParseStat reads the aggregate "cpu" line of a /proc/stat: user nice
// system idle iowait irq softirq steal [guest guest_nice]. Guest time is
// already counted in user and nice, so it is left out of the total.
func ParseStat(b []byte) (Machine, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 || string(f[0]) != "cpu" {
			continue
		}
		if len(f) < 9 {
			return Machine{}, fmt.Errorf("/proc/stat: cpu line has %d fields, want at least 8 counters", len(f)-1)
		}
		var m Machine
		for i, s := range f[1:9] {
			v, err := strconv.ParseUint(string(s), 10, 64)
			if err != nil {
				return Machine{}, fmt.Errorf("/proc/stat: cpu counter %d: %q is not a count", i+1, s)
			}
			if m.Total+v < m.Total {
				return Machine{}, fmt.Errorf("/proc/stat: cpu counters overflow 64 bits")
			}
			m.Total += v
			if i == 7 {
				m.Steal = v
			}
		}
		return m, nil
	}
	return Machine{}, fmt.Errorf("/proc/stat: no cpu line")
}
