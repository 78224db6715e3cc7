package export

import (
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// ImageFeatures is one image's feature count in report.json.
type ImageFeatures struct {
	Image    string `json:"image"`
	Features int    `json:"features"`
}

// PairReport is one image pair's matching and verification in report.json.
type PairReport struct {
	A          string `json:"image_a"`
	B          string `json:"image_b"`
	Matches    int    `json:"ratio_matches"`
	Model      string `json:"model,omitempty"`
	HInliers   int    `json:"h_inliers,omitempty"`
	FInliers   int    `json:"f_inliers,omitempty"`
	Inliers    int    `json:"inliers,omitempty"`
	Guided     int    `json:"guided,omitempty"`
	Verified   int    `json:"verified_matches,omitempty"`
	Consistent int    `json:"consistent_matches"`
}

// PairSelection says how the pairs were chosen: the mode (auto
// resolved) and, per source (exhaustive, sequential, retrieval,
// completion, given), the pairs it proposed, those matched on its account
// (a pair proposed twice counts for the first source) and those verified.
type PairSelection struct {
	Mode    string                 `json:"mode"`
	Sources map[string]SourceCount `json:"sources"`
}

// SourceCount is one source's pairs in PairSelection.
type SourceCount struct {
	Considered int `json:"considered"`
	Matched    int `json:"matched"`
	Verified   int `json:"verified"`
}

// ReportFormatVersion is report.json's format_version: it grows when a
// field changes meaning or goes; added fields keep it.
const ReportFormatVersion = 1

// PairCacheHits counts the pairs whose ratio matches, and whose
// verification, came from the pair cache instead of being computed.
type PairCacheHits struct {
	Matches       int `json:"matches"`
	Verifications int `json:"verifications"`
}

// Report is report.json of `clearmatch match` (schema:
// docs/schema/report.schema.json).
type Report struct {
	FormatVersion    int                          `json:"format_version"`
	Images           int                          `json:"images"`
	Skipped          []string                     `json:"skipped_images"`
	Features         []ImageFeatures              `json:"features_per_image"`
	PairsMatched     int                          `json:"pairs_matched"`
	RatioMatches     int                          `json:"ratio_matches"`
	Verification     *pipeline.VerificationCounts `json:"verification,omitempty"`
	InputMatches     int                          `json:"input_matches"`
	UniverseSize     int                          `json:"universe_size"`
	Components       int                          `json:"components"`
	LargestComponent int                          `json:"largest_component"`
	SplitComponents  int                          `json:"split_components"`
	CutAssociations  int                          `json:"cut_associations"`
	Tracks           int                          `json:"tracks"`
	// ForeignObservations are those CLEAR assigned to an item of another
	// component of the association graph, taken out of their tracks.
	ForeignObservations int `json:"foreign_observations"`
	// CompletedObservations were added to CLEAR's tracks by completion.
	CompletedObservations int `json:"completed_observations"`
	// UnconfirmedObservations of those were taken out again by
	// refinement: their patch did not align with the track's reference.
	UnconfirmedObservations int `json:"unconfirmed_observations"`
	// WeakPairs is the weak-pair filter's count (-weak-pairs): the pairs
	// refitted and the observations taken out; omitted when it is off.
	WeakPairs *pipeline.WeakStats `json:"weak_pairs,omitempty"`
	// SelfCalibration is what -self-calibrate found; omitted when it did
	// not run (intrinsics given, or -self-calibrate=false).
	SelfCalibration *SelfCalibration `json:"self_calibration,omitempty"`
	// ReprojFilter is the reprojection filter's count (-reproj-filter):
	// images placed, observations checked and taken out; omitted when it
	// did not run.
	ReprojFilter      *pipeline.ReprojStats `json:"reproj_filter,omitempty"`
	ConsistentMatches int                   `json:"consistent_matches"`
	CacheHits         int                   `json:"cache_hits"`
	PairCacheHits     PairCacheHits         `json:"pair_cache_hits"`
	DescriptorLoads   int64                 `json:"descriptor_loads"` // images' descriptors read back from the cache (-descriptor-memory)
	PairSelection     PairSelection         `json:"pair_selection"`
	Pairs             []PairReport          `json:"pairs"`
	TimingSeconds     map[string]float64    `json:"timing_s"`
	// Matcher names the products the matcher chose candidates from on
	// the machine that ran (features.MatcherProducts); the matches do not
	// depend on it.
	Matcher string `json:"matcher,omitempty"`
}

// SelfCalibration reports pipeline.Result.SelfCalibration: the camera in
// full-resolution pixels, pixel centres at integers (COLMAP's principal
// point is 0.5 more), and whether its principal point was accepted (the
// export's camera starts there) or why not.
type SelfCalibration struct {
	Accepted     bool    `json:"accepted"`
	Reason       string  `json:"reason,omitempty"`
	Focal        float64 `json:"focal_px"`
	Cx           float64 `json:"cx"`
	Cy           float64 `json:"cy"`
	K1           float64 `json:"k1"`
	Images       int     `json:"images"`
	Placed       int     `json:"placed"`
	Points       int     `json:"points"`
	Observations int     `json:"observations"`
	RMS          float64 `json:"rms_px"`
	Chi2         float64 `json:"chi2"`
}

// NewReport summarizes a run whose tracks and consistent matches are t and
// ms: each stage's part of report.json from that stage's value and stats
// (extraction's scene, the pairs stage's Matched, the solve's Solution,
// the track stages' stats), then the outputs' counts.
func NewReport(r *pipeline.Result, t *Tracks, ms []Match) *Report {
	rep := &Report{FormatVersion: ReportFormatVersion, Skipped: []string{}, TimingSeconds: map[string]float64{}}
	rep.addExtraction(r)
	rep.addPairs(r, consistentPerPair(ms))
	rep.addSolve(r.Solution)
	rep.addTrackStages(r)
	rep.Tracks, rep.ConsistentMatches = len(t.Tracks), len(ms)
	return rep
}

// addExtraction reports the scene extraction made: its images and their
// features, the images skipped, the feature cache's work.
func (rep *Report) addExtraction(r *pipeline.Result) {
	rep.Images, rep.CacheHits, rep.DescriptorLoads = len(r.Images), r.CacheHits, r.DescriptorLoads
	for _, s := range r.Skipped {
		rep.Skipped = append(rep.Skipped, s.Name)
	}
	for _, s := range r.Sets {
		rep.Features = append(rep.Features, ImageFeatures{Image: s.Image, Features: s.Len()})
	}
	rep.TimingSeconds["extract"] = r.Timing.Extract.Seconds()
}

// addPairs reports the pairs stage: how the pairs were chosen, each pair's
// ratio matches and verification (the models the track stages left,
// Result.Verified) with its consistent matches, and the pair cache's work.
func (rep *Report) addPairs(r *pipeline.Result, consistent map[[2]int]int) {
	rep.PairsMatched = len(r.Matches)
	rep.PairCacheHits = PairCacheHits{r.PairCacheHits[0], r.PairCacheHits[1]}
	if r.Verified != nil {
		c := r.CountVerification()
		rep.Verification = &c
	}
	byPair := map[[2]int]*pairwise.Verified{}
	for k := range r.Verified {
		byPair[[2]int{r.Verified[k].I, r.Verified[k].J}] = &r.Verified[k]
	}
	rep.PairSelection = PairSelection{Mode: r.PairMode, Sources: map[string]SourceCount{}}
	for src, n := range r.PairsConsidered {
		c := rep.PairSelection.Sources[src]
		c.Considered = n
		rep.PairSelection.Sources[src] = c
	}
	for k, p := range r.Matches {
		src := ""
		if k < len(r.PairSources) {
			src = r.PairSources[k]
		}
		v := byPair[[2]int{p.I, p.J}]
		c := rep.PairSelection.Sources[src]
		c.Matched++
		if v != nil && v.Model != pairwise.NoModel {
			c.Verified++
		}
		rep.PairSelection.Sources[src] = c
		rep.RatioMatches += len(p.Matches)
		pr := PairReport{A: r.Images[p.I].Name, B: r.Images[p.J].Name, Matches: len(p.Matches), Consistent: consistent[[2]int{p.I, p.J}]}
		if v != nil {
			pr.Model, pr.HInliers, pr.FInliers, pr.Inliers, pr.Guided = v.Model.String(), v.HInliers, v.FInliers, v.Inliers, v.Guided
			pr.Verified = len(v.Matches)
		}
		rep.Pairs = append(rep.Pairs, pr)
	}
	rep.TimingSeconds["select"] = r.Timing.Select.Seconds()
	rep.TimingSeconds["match"] = r.Timing.Match.Seconds()
	rep.TimingSeconds["verify"] = r.Timing.Verify.Seconds()
}

// consistentPerPair counts the consistent matches of each image pair.
func consistentPerPair(ms []Match) map[[2]int]int {
	consistent := map[[2]int]int{}
	for _, m := range ms {
		consistent[[2]int{m.A, m.B}]++
	}
	return consistent
}

// addSolve reports the solve stage: CLEAR's input and what it found.
func (rep *Report) addSolve(sol *pipeline.Solution) {
	rep.InputMatches, rep.ForeignObservations = len(sol.Problem.Associations), sol.Foreign
	c := sol.Clear
	rep.UniverseSize, rep.Components, rep.LargestComponent = c.UniverseSize, c.Components, c.LargestComponent
	rep.SplitComponents, rep.CutAssociations = c.SplitComponents, c.CutAssociations
	rep.TimingSeconds["solve"] = sol.Time.Seconds()
}

// addTrackStages reports each track stage's stats and time; a stage that
// did not run leaves its part out (completion and refinement report
// zeros, and the weak-pair filter's time is there, as report.json always
// had them).
func (rep *Report) addTrackStages(r *pipeline.Result) {
	rep.CompletedObservations, rep.UnconfirmedObservations = r.Completed, r.Refinement.Unconfirmed
	if r.Weak.Pairs > 0 || r.Weak.Dropped > 0 {
		weak := r.Weak
		rep.WeakPairs = &weak
	}
	rep.TimingSeconds["complete"] = r.Timing.Complete.Seconds()
	rep.TimingSeconds["refine"] = r.Timing.Refine.Seconds()
	rep.TimingSeconds["weak"] = r.Timing.Weak.Seconds()
	if sc := r.SelfCalibration; sc != nil {
		rep.SelfCalibration = &SelfCalibration{Accepted: sc.Accepted, Reason: sc.Reason, Focal: sc.Camera.Focal, Cx: sc.Camera.Cx, Cy: sc.Camera.Cy, K1: sc.Camera.K1,
			Images: sc.Views, Placed: sc.Registered, Points: sc.Points, Observations: sc.Observations, RMS: sc.RMS, Chi2: sc.Chi2}
		rep.TimingSeconds["calibrate"] = r.Timing.Calibrate.Seconds()
	}
	if st := r.Reproj; st.Views > 0 || st.Reason != "" {
		rep.ReprojFilter = &st
		rep.TimingSeconds["reproj"] = r.Timing.Reproj.Seconds()
	}
}
