package train

import (
	"cmp"
	"fmt"
	"time"

	"github.com/gammae/gammae/internal/cputime"
)

// budget is a run's time budget on the wall clock (Config.Minutes) or on
// the process's CPU clock (Config.CPUMinutes). It counts everything from
// the first iteration on, validations and checkpoints included, and a
// resumed run has what its earlier invocations left (State.BudgetSeconds,
// State.BudgetCPU).
type budget struct {
	on, cpu bool
	total   float64       // minutes, the whole run's
	limit   time.Duration // this invocation's
	// Both clocks when this invocation began, and what earlier ones
	// spent, for the state: a resumed run may switch budgets.
	wall0               time.Time
	cpu0                time.Duration
	priorWall, priorCPU time.Duration
	stopped             bool
	stopWall, stopCPU   time.Duration // this invocation's, once stopped
}

func (t *trainer) newBudget() *budget {
	b := &budget{wall0: time.Now(), cpu0: cputime.Process(),
		priorWall: seconds(cmp.Or(t.st.BudgetSeconds, t.st.Seconds)),
		priorCPU:  seconds(cmp.Or(t.st.BudgetCPU, t.st.CPUSeconds))}
	switch {
	case t.cfg.CPUMinutes > 0:
		b.on, b.cpu, b.total = true, true, t.cfg.CPUMinutes
		b.limit = max(minutes(t.cfg.CPUMinutes)-b.priorCPU, 0)
	case t.cfg.Minutes > 0:
		b.on, b.total = true, t.cfg.Minutes
		b.limit = max(minutes(t.cfg.Minutes)-b.priorWall, 0)
	}
	return b
}

// used is the budget's clock's time since this invocation began (read
// every iteration: only that clock is read).
func (b *budget) used() time.Duration {
	switch {
	case b.stopped && b.cpu:
		return b.stopCPU
	case b.stopped:
		return b.stopWall
	case b.cpu:
		return cputime.Process() - b.cpu0
	}
	return time.Since(b.wall0)
}

// clocks are the wall and CPU time since this invocation began, or until
// stop.
func (b *budget) clocks() (wall, cpu time.Duration) {
	if b.stopped {
		return b.stopWall, b.stopCPU
	}
	return time.Since(b.wall0), cputime.Process() - b.cpu0
}

// stop ends the budget's count: what follows the last iteration (the
// check of the best checkpoint) is not training time.
func (b *budget) stop() {
	b.stopWall, b.stopCPU = b.clocks()
	b.stopped = true
}

// spent is the whole run's wall and CPU time in seconds, for the state.
func (b *budget) spent() (wall, cpu float64) {
	w, c := b.clocks()
	return (b.priorWall + w).Seconds(), (b.priorCPU + c).Seconds()
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
