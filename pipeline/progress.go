package pipeline

import "github.com/clearmatch/clearmatch/tracks"

// Stage names, as reported to Progress and in Timing.
const (
	StageExtract = "extract"
	StageMatch   = "match"
	StageVerify  = "verify"
	StageSolve   = "solve"
	// StageComplete and StageCompletePairs are track completion's,
	// StageRefine refinement's (package tracks).
	StageComplete      = tracks.StageComplete
	StageCompletePairs = tracks.StageCompletePairs
	StageRefine        = tracks.StageRefine
)

// Progress receives the progress of long stages. Update is called with
// the stage's name and how many of its total units are done; calls are
// serialized, and done == total ends the stage.
type Progress interface {
	Update(stage string, done, total int)
}

// StatusReporter is a Progress that can also show what a stage is doing
// where a rate would mislead: the solve spends its time on its few large
// components, so it reports the component under way instead of an ETA.
type StatusReporter interface {
	Progress
	Status(stage string, done, total int, detail string)
}

// offsetProgress reports a stage that runs in rounds as one count: the
// pairs of earlier rounds are added to done and total.
func offsetProgress(p Progress, stage string, before int) func(done, total int) {
	if p == nil {
		return nil
	}
	return func(done, total int) { p.Update(stage, before+done, before+total) }
}

func stageProgress(p Progress, stage string) func(done, total int) {
	if p == nil {
		return nil
	}
	return func(done, total int) { p.Update(stage, done, total) }
}

// trackProgress passes the track stages' progress to p.
func trackProgress(p Progress) func(stage string, done, total int) {
	if p == nil {
		return nil
	}
	return p.Update
}
