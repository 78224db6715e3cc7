package clear

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// team splits the row-wise work of one large component between goroutines.
// A Lanczos step has three dependent phases of some tens of microseconds
// each, about what waking a parked goroutine costs, so the helpers wait
// for work by spinning, yielding to the scheduler regularly. A team lives only while one
// component is decomposed and is closed right after.
//
// The rows are split into a number of parts that depends only on the
// component, and partial results are combined in part order, so the
// arithmetic, and the output, does not depend on the number of cores;
// the workers (at most GOMAXPROCS) take the parts in turn.
type team struct {
	bounds  []int // part p holds the rows bounds[p] to bounds[p+1]
	workers int
	fn      func(p, lo, hi int)
	gen     atomic.Uint64 // incremented to start a phase
	done    atomic.Int32  // helpers finished with the current phase
	stop    atomic.Bool
	helpers sync.WaitGroup
}

// teamMinWork is the smallest component, in stored entries plus rows, that
// is split: below it a phase is too short to gain from a second core.
const teamMinWork = 1 << 16

// teamMaxParts is the largest number of parts. It is fixed, not taken
// from the machine, so that the order of the partial sums, and so the
// output, is the same on any number of cores; more parts make each BLAS
// call smaller (docs/decisions.md, "CLEAR's parallel eigensolver").
const teamMaxParts = 2

// newTeam returns a team for c with up to teamMaxParts parts and up to
// GOMAXPROCS workers. A small component gets one part, which runs on the
// calling goroutine. The caller must close the team.
func newTeam(c *component) *team {
	n := c.size()
	work := c.rowPtr[n] + n
	parts := max(1, min(teamMaxParts, work/teamMinWork))
	return newTeamParts(c, parts, min(parts, runtime.GOMAXPROCS(0)))
}

// newTeamParts returns a team for c with the given numbers of parts,
// balanced by stored entries, and of workers (at most parts).
func newTeamParts(c *component, parts, workers int) *team {
	n := c.size()
	work := c.rowPtr[n] + n
	t := &team{bounds: make([]int, parts+1), workers: workers}
	t.bounds[parts] = n
	i := 0
	for p := 1; p < parts; p++ {
		target := work * p / parts
		for i < n && c.rowPtr[i]+i < target {
			i++
		}
		t.bounds[p] = i
	}
	t.helpers.Add(workers - 1)
	for wk := 1; wk < workers; wk++ {
		go t.help(wk)
	}
	return t
}

func (t *team) parts() int { return len(t.bounds) - 1 }

// run calls fn(p, lo, hi) for every part and returns when all have
// finished. Worker 0 is the calling goroutine.
func (t *team) run(fn func(p, lo, hi int)) {
	if t.workers <= 1 {
		for p := 0; p < t.parts(); p++ {
			fn(p, t.bounds[p], t.bounds[p+1])
		}
		return
	}
	t.fn = fn
	t.done.Store(0)
	t.gen.Add(1) // publishes fn to the helpers
	t.work(0)
	for spins := 1; t.done.Load() != int32(t.workers-1); spins++ {
		if spins%1024 == 0 {
			runtime.Gosched()
		}
	}
}

// work runs the parts of worker wk.
func (t *team) work(wk int) {
	for p := wk; p < t.parts(); p += t.workers {
		t.fn(p, t.bounds[p], t.bounds[p+1])
	}
}

func (t *team) help(wk int) {
	defer t.helpers.Done()
	var seen uint64 // phases start at 1
	for spins := 1; ; spins++ {
		g := t.gen.Load()
		if g == seen {
			if t.stop.Load() {
				return
			}
			if spins%1024 == 0 {
				runtime.Gosched()
			}
			continue
		}
		seen = g
		t.work(wk)
		t.done.Add(1)
	}
}

// close stops the helpers and returns when they have.
func (t *team) close() {
	t.stop.Store(true)
	t.helpers.Wait()
}
