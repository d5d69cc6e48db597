package train

import (
	"fmt"
	"time"

	"github.com/gammae/gammae/internal/cputime"
)

// budget is a run's time budget on the wall clock (Config.Minutes) or on
// the process's CPU clock (Config.CPUMinutes). A resumed run has what its
// earlier invocations left.
type budget struct {
	on, cpu bool
	total   float64       // minutes, the whole run's
	limit   time.Duration // this invocation's
	start   time.Duration // the clock when this invocation began
	wall    time.Time
}

func (t *trainer) newBudget() *budget {
	b := &budget{wall: time.Now()}
	switch {
	case t.cfg.CPUMinutes > 0:
		b.on, b.cpu, b.total = true, true, t.cfg.CPUMinutes
		b.limit = max(minutes(t.cfg.CPUMinutes)-seconds(t.st.CPUSeconds), 0)
		b.start = cputime.Process()
	case t.cfg.Minutes > 0:
		b.on, b.total = true, t.cfg.Minutes
		b.limit = max(minutes(t.cfg.Minutes)-seconds(t.st.Seconds), 0)
	}
	return b
}

// used is the clock's time since this invocation began.
func (b *budget) used() time.Duration {
	if b.cpu {
		return cputime.Process() - b.start
	}
	return time.Since(b.wall)
}

func (b *budget) left() time.Duration { return b.limit - b.used() }

// over reports whether a budget is set and spent.
func (b *budget) over() bool { return b.on && b.used() >= b.limit }

func (b *budget) unit() string {
	if b.cpu {
		return "CPU-s"
	}
	return "s"
}

func (b *budget) String() string {
	if b.cpu {
		return fmt.Sprintf("%.4g CPU-minutes", b.total)
	}
	return fmt.Sprintf("%.4g minutes", b.total)
}

func minutes(m float64) time.Duration { return time.Duration(m * float64(time.Minute)) }
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
