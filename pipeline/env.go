package pipeline

// Env is what every stage shares and no output depends on: how many
// workers run at once, where progress goes, and the caches. Each stage's
// Run reads it; none writes it. Options embed one, so that the chain's
// conveniences (Run, Match, MatchGiven) carry it to each stage.
type Env struct {
	// Workers bounds every stage's worker pool; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Workers int
	// Progress, if set, receives every stage's progress.
	Progress Progress
	// Cache configures the caches; results never depend on them.
	Cache CacheOptions
}
