package pairwise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/pool"
)

// Geometric verification checks the ratio-test matches of every image pair
// against two-view geometry, the way structure-from-motion engines do
// (Schönberger and Frahm, "Structure-from-Motion Revisited", CVPR 2016,
// §4.1): a fundamental matrix F (or, with known intrinsics, an essential
// matrix E) and a homography H are fitted robustly; H is chosen when it
// explains nearly as many matches as F (planar scenes and pure rotations,
// where F is degenerate); a pair is verified only with enough inliers. Then
// guided matching adds, for every verified pair, the mutual nearest
// descriptors among the features that agree with the model, which is where
// most of the recall comes from.
//
// The robust fitting is an Estimator (features.CVEstimator wraps OpenCV's
// MAGSAC++); everything else here is pure Go.

// ModelKind names a two-view model.
type ModelKind int

const (
	// NoModel marks a pair that was not verified.
	NoModel ModelKind = iota
	// Homography: x_J ~ H x_I (a plane, or a camera that only rotated).
	Homography
	// Fundamental: x_Jᵀ F x_I = 0 (general scene, unknown intrinsics).
	Fundamental
	// Essential: x̂_Jᵀ E x̂_I = 0 in normalized coordinates x̂ = K⁻¹x.
	Essential
)

func (k ModelKind) String() string {
	switch k {
	case NoModel:
		return "none"
	case Homography:
		return "H"
	case Fundamental:
		return "F"
	case Essential:
		return "E"
	}
	return fmt.Sprintf("ModelKind(%d)", int(k))
}

// Estimator fits a model of the given kind (Homography, Fundamental, or
// Essential on normalized coordinates) to the correspondences a[k] ↔ b[k]
// robustly, with threshold as the largest error of an inlier in the
// points' units. It returns the model (3×3, row-major, mapping a to b), the
// inlier mask and ok = false when no model was found. Implementations must
// be deterministic and safe for concurrent use.
type Estimator interface {
	Estimate(kind ModelKind, a, b []geom.Point, threshold float64) (model [9]float64, inlier []bool, ok bool, err error)
}

// View is what verification needs of one image: its feature positions (in
// pixels), descriptors (row-major, dim each; only guided matching reads
// them, so they may be nil without Guided), intrinsics when known, and
// PixelScale, the full-resolution pixels per pixel of the image the
// features were detected in (1 when not downscaled; 0 means 1), so that
// thresholds keep their meaning at the detection resolution.
type View struct {
	Points     []geom.Point
	Desc       []float32
	Intrinsics geom.Intrinsics
	PixelScale float64
}

// VerifyOptions configure Verify. Zero values mean the defaults given.
type VerifyOptions struct {
	// Threshold is the largest model error of an inlier, in pixels of the
	// detection resolution: point-to-epipolar-line (Sampson) distance for F
	// and E, transfer error for H. Default 3 (OpenCV's and close to
	// COLMAP's 4).
	Threshold float64
	// MinInliers is the fewest inliers of a verified pair. Default 15
	// (COLMAP's min_num_inliers). For sparse images it is lowered to a
	// quarter of the smaller image's features, but not below 8. F is the
	// model only when at least this many of its inliers are off H's.
	MinInliers int
	// MinInlierRatio, when positive, rejects a pair whose inliers are
	// fewer than this fraction of its ratio matches. The default, 0,
	// rejects none, as COLMAP: its min_inlier_ratio (0.25) only bounds the
	// number of RANSAC trials, and wide-baseline pairs with 15-25% inliers
	// are verified. Those pairs tie the views at the ends of a sweep to
	// the rest (docs/decisions.md).
	MinInlierRatio float64
	// HRatio: H is the model when it has at least HRatio times the inliers
	// of F (or E). Default 0.8 (COLMAP's max_H_inlier_ratio).
	HRatio float64
	// Guided adds guided matches to a verified pair: features within
	// GuidedThreshold of its model that pass GuidedRatio. Off by default,
	// as in COLMAP: a verified pair keeps only the inliers of its ratio
	// matches (guided matching cost SfM accuracy; see
	// pipeline.DefaultOptions).
	Guided bool
	// NoOneToOneCheck turns off the check of pairs whose inliers hold
	// several matches into one feature of image J: by default such a pair
	// is verified only if its inliers go into at least MinInliers features
	// of J and its one-to-one candidates (of the matches into each feature
	// of J, the one of lowest ratio) verify on their own. One feature
	// matched by many is no evidence of geometry, and such a clump lets F
	// fit images of different scenes (the epipole on the clump explains
	// every match into it): on a folder mixing three scenes (38 photos,
	// 703 pairs) it verified 148 cross-scene pairs, 4 with the check. The
	// pair keeps its first result when it passes, so the check only ever
	// rejects.
	NoOneToOneCheck bool
	// PlanarH makes an uncalibrated pair that H explains nearly as well as
	// F take H, which guided matching needs on planar scenes (F is
	// degenerate on a plane). By default COLMAP's rule applies to
	// uncalibrated pairs too: such a pair keeps F's inliers when F has the
	// more and real support off the plane (labelled Planar); with guided
	// matching off, keeping F's depth measured better (see
	// pipeline.DefaultOptions).
	PlanarH bool
	// GuidedThreshold is the model error of a guided match, in pixels of
	// the detection resolution. Default: Threshold.
	GuidedThreshold float64
	// GuidedRatio is the ratio test among the candidates of a guided
	// match along an epipolar band (F or E): its descriptor distance must
	// be below GuidedRatio times the next candidate's, in both directions.
	// A band along a whole line holds many candidates, so it needs the same
	// test as matching without geometry. Default 0.8; 1 turns it off.
	// Under H a guided match is a mutual nearest neighbour in a disc of
	// radius GuidedThreshold, with no ratio test.
	GuidedRatio float64
	// GuidedMaxDistance, when positive, caps the squared descriptor
	// distance of a guided match. Default: no cap.
	GuidedMaxDistance float64
}

// VerifyRun is how Verify runs, apart from what it computes: its result
// does not depend on it.
type VerifyRun struct {
	// Descriptors, when set, gives image i's descriptors for guided
	// matching when its View has none, so that not every image's need be
	// in memory at once.
	Descriptors func(i int) ([]float32, error)
	// Workers bounds the pairs verified at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is called after each pair (serialized).
	Progress func(done, total int)
	// OnPair, if set, receives each pair's result as soon as it is done
	// (from the workers, possibly at once): the pipeline's pair cache
	// stores it there, so an interrupted run keeps what it finished.
	OnPair func(Verified)
}

// DefaultVerifyThreshold is VerifyOptions.Threshold's default, pixels.
const DefaultVerifyThreshold = 3

func (o VerifyOptions) withDefaults() VerifyOptions {
	if o.Threshold == 0 {
		o.Threshold = DefaultVerifyThreshold
	}
	if o.MinInliers == 0 {
		o.MinInliers = 15
	}
	if o.HRatio == 0 {
		o.HRatio = 0.8
	}
	if o.GuidedThreshold == 0 {
		o.GuidedThreshold = o.Threshold
	}
	if o.GuidedRatio == 0 {
		o.GuidedRatio = 0.8
	}
	return o
}

// Validate reports impossible options.
func (o VerifyOptions) Validate() error {
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(o.Threshold) || bad(o.GuidedThreshold) || bad(o.GuidedMaxDistance):
		return errors.New("pairwise: thresholds must be non-negative numbers")
	case o.MinInliers < 0:
		return fmt.Errorf("pairwise: MinInliers %d is negative", o.MinInliers)
	case bad(o.GuidedRatio) || o.GuidedRatio > 1:
		return fmt.Errorf("pairwise: GuidedRatio %v is not in [0, 1]", o.GuidedRatio)
	case bad(o.MinInlierRatio) || o.MinInlierRatio > 1:
		return fmt.Errorf("pairwise: MinInlierRatio %v is not in [0, 1]", o.MinInlierRatio)
	case bad(o.HRatio):
		return fmt.Errorf("pairwise: HRatio %v is not a non-negative number", o.HRatio)
	}
	return nil
}

// Verified is the verification of one image pair I < J.
type Verified struct {
	I, J int
	// Model is the chosen model (NoModel: the pair was rejected) and Matrix
	// its 3×3 matrix, row-major, mapping I to J (x_J ~ H x_I, x_Jᵀ F x_I =
	// 0, or the same with E on normalized coordinates). F holds the
	// fundamental matrix implied by an essential one (zero otherwise).
	Model  ModelKind
	Matrix [9]float64
	F      [9]float64
	// Planar marks a pair that a homography explains nearly as well as the
	// chosen F or E (COLMAP's PLANAR_OR_PANORAMIC): H holds it. The matches
	// are still F's or E's, so the depth off the plane is kept; only a pair
	// whose F or E has too little support off the plane takes H as its
	// Model.
	Planar bool
	H      [9]float64
	// Candidates counts the ratio matches tried; HInliers and FInliers the
	// inliers of each fitted model (FInliers counts E's when intrinsics are
	// known); Inliers those of the chosen model.
	Candidates, HInliers, FInliers, Inliers int
	// Guided counts the matches guided matching added beyond the inliers.
	Guided int
	// Matches are the verified matches, one-to-one, sorted by A: the
	// inliers and the guided matches. Empty for a rejected pair.
	Matches []Match
}

// Verify checks every pair's matches against two-view geometry and, for
// verified pairs, adds guided matches. The result holds one Verified per
// pair, in the order of pairs; it does not depend on the number of workers.
func Verify(ctx context.Context, views []View, dim int, pairs []Pair, est Estimator, opts VerifyOptions, run VerifyRun) ([]Verified, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	for i, v := range views {
		if len(v.Desc) != len(v.Points)*dim && !(v.Desc == nil && (!o.Guided || run.Descriptors != nil)) {
			return nil, fmt.Errorf("pairwise: image %d has %d descriptor floats for %d points", i, len(v.Desc), len(v.Points))
		}
	}
	out := make([]Verified, len(pairs))
	err := pool.ForEach(ctx, len(pairs), run.Workers, run.Progress, func(k int) error {
		p := pairs[k]
		if p.I < 0 || p.J >= len(views) || p.I >= p.J {
			return fmt.Errorf("pairwise: bad pair (%d, %d)", p.I, p.J)
		}
		var err error
		if out[k], err = verifyPair(&views[p.I], &views[p.J], dim, p, est, &o, run.Descriptors); err != nil {
			return fmt.Errorf("pairwise: verifying images %d and %d: %w", p.I, p.J, err)
		}
		if run.OnPair != nil {
			run.OnPair(out[k])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func pixelScale(v *View) float64 {
	if v.PixelScale > 0 {
		return v.PixelScale
	}
	return 1
}

func verifyPair(vi, vj *View, dim int, p Pair, est Estimator, o *VerifyOptions, desc func(int) ([]float32, error)) (Verified, error) {
	r := Verified{I: p.I, J: p.J, Candidates: len(p.Matches)}
	for _, m := range p.Matches {
		if int(m.A) >= len(vi.Points) || int(m.B) >= len(vj.Points) || m.A < 0 || m.B < 0 {
			return r, fmt.Errorf("match (%d, %d) out of range", m.A, m.B)
		}
	}
	n := len(p.Matches)
	minIn := minInliers(o.MinInliers, min(len(vi.Points), len(vj.Points)))
	if n < minIn {
		return r, nil
	}
	px := max(pixelScale(vi), pixelScale(vj))
	thr := o.Threshold * px
	essential := vi.Intrinsics.Known() && vj.Intrinsics.Known()
	// fit estimates a model of the kind on the matches ms: H on pixels, F
	// on pixels or, with intrinsics, E on normalized coordinates.
	fit := func(kind ModelKind, ms []Match) ([9]float64, []bool, bool, error) {
		a := make([]geom.Point, len(ms))
		b := make([]geom.Point, len(ms))
		for k, m := range ms {
			a[k], b[k] = vi.Points[m.A], vj.Points[m.B]
		}
		if kind != Essential {
			return est.Estimate(kind, a, b, thr)
		}
		for k := range a {
			a[k], b[k] = vi.Intrinsics.Normalize(a[k]), vj.Intrinsics.Normalize(b[k])
		}
		f := (vi.Intrinsics.Fx + vi.Intrinsics.Fy + vj.Intrinsics.Fx + vj.Intrinsics.Fy) / 4
		return est.Estimate(Essential, a, b, thr/f)
	}
	hm, hin, hok, err := fit(Homography, p.Matches)
	if err != nil {
		return r, err
	}
	fkind := Fundamental
	if essential {
		fkind = Essential
	}
	fm, fin, fok, err := fit(fkind, p.Matches)
	if err != nil {
		return r, err
	}
	if hok {
		r.HInliers = count(hin)
	}
	if fok {
		r.FInliers = count(fin)
	}
	// Model selection: H when it explains nearly as much as F (or E), or
	// when F's support off H's inliers is too thin to show depth (F is
	// degenerate on a plane and fits outliers with its extra freedom).
	var inl []bool
	offPlane := 0
	if fok {
		for k := range fin {
			if fin[k] && (!hok || !hin[k]) {
				offPlane++
			}
		}
	}
	//
	// With known intrinsics, as COLMAP does (EstimateCalibratedTwoViewGeometry),
	// a pair H explains nearly as well as E is labelled planar but keeps
	// E's inliers when they are the more and have real support off the
	// plane: H's inliers alone would drop every true match off the plane
	// (the fountain's sculpture in front of its wall), the depth the mapper
	// needs, and E, unlike F, is not degenerate on a plane. Without
	// intrinsics H is kept with PlanarH: on a plane F always finds a
	// few more inliers in its looser epipolar band, and COLMAP's rule turned
	// 12 of Graffiti's 12 pairs into F and its guided matches along
	// degenerate epipolar lines (verified CLEAR F1 0.861 -> 0.840).
	nearlyPlanar := hok && fok && float64(r.HInliers) >= o.HRatio*float64(r.FInliers)
	switch {
	case hok && (!fok || offPlane < minIn || nearlyPlanar && (!essential && o.PlanarH || r.HInliers > r.FInliers)):
		r.Model, r.Matrix, inl, r.Inliers = Homography, hm, hin, r.HInliers
	case fok && essential:
		r.Model, r.Matrix, inl, r.Inliers = Essential, fm, fin, r.FInliers
		r.F = essentialToFundamental(fm, vi.Intrinsics, vj.Intrinsics)
	case fok:
		r.Model, r.Matrix, inl, r.Inliers = Fundamental, fm, fin, r.FInliers
		r.F = fm
	}
	if r.Model == Homography || nearlyPlanar {
		r.Planar, r.H = true, hm
	}
	reject := r.Model == NoModel || r.Inliers < minIn || float64(r.Inliers) < o.MinInlierRatio*float64(n)
	if d := distinctB(p.Matches, inl, len(vj.Points)); !reject && !o.NoOneToOneCheck && d < r.Inliers {
		// Inliers into one feature of J are one inlier's worth of support,
		// and the one-to-one candidates must verify on their own.
		reject = d < minIn
		if !reject {
			q := *o
			q.NoOneToOneCheck, q.Guided = true, false
			u, err := verifyPair(vi, vj, dim, Pair{I: p.I, J: p.J, Matches: oneToOne(p.Matches, len(vj.Points))}, est, &q, desc)
			if err != nil {
				return r, err
			}
			reject = u.Model == NoModel
		}
	}
	if reject {
		r.Model, r.Planar, r.H = NoModel, false, [9]float64{}
		return r, nil
	}
	for k, m := range p.Matches {
		if inl[k] {
			r.Matches = append(r.Matches, m)
		}
	}
	if o.Guided {
		if vi.Desc == nil || vj.Desc == nil {
			wi, wj := *vi, *vj
			if wi.Desc, err = viewDesc(vi, p.I, dim, desc); err != nil {
				return r, err
			}
			if wj.Desc, err = viewDesc(vj, p.J, dim, desc); err != nil {
				return r, err
			}
			vi, vj = &wi, &wj
		}
		g := guidedMatches(vi, vj, dim, &r, o.GuidedThreshold*px, o.GuidedMaxDistance, o.GuidedRatio)
		r.Guided = len(g) - len(r.Matches)
		r.Matches = g
	}
	return r, nil
}

// viewDesc returns v's descriptors (image i), from get when v has none.
func viewDesc(v *View, i, dim int, get func(int) ([]float32, error)) ([]float32, error) {
	if v.Desc != nil {
		return v.Desc, nil
	}
	d, err := get(i)
	if err != nil {
		return nil, err
	}
	if len(d) != len(v.Points)*dim {
		return nil, fmt.Errorf("image %d has %d descriptor floats for %d points", i, len(d), len(v.Points))
	}
	return d, nil
}

// distinctB counts the features of image J (nb features) that the
// matches ms marked in inl go into.
func distinctB(ms []Match, inl []bool, nb int) int {
	seen := make([]bool, nb)
	n := 0
	for k, m := range ms {
		if inl[k] && !seen[m.B] {
			seen[m.B] = true
			n++
		}
	}
	return n
}

// oneToOne keeps, of the matches into each feature B of image J (nb
// features), the one of lowest ratio, then lowest A; the order is kept. It
// returns ms itself when no feature of J is matched twice.
func oneToOne(ms []Match, nb int) []Match {
	best := make([]int32, nb)
	for k := range best {
		best[k] = -1
	}
	dup := false
	for k, m := range ms {
		b := best[m.B]
		switch {
		case b < 0:
			best[m.B] = int32(k)
		default:
			dup = true
			if o := ms[b]; m.Ratio < o.Ratio || m.Ratio == o.Ratio && m.A < o.A {
				best[m.B] = int32(k)
			}
		}
	}
	if !dup {
		return ms
	}
	out := make([]Match, 0, len(ms))
	for k, m := range ms {
		if best[m.B] == int32(k) {
			out = append(out, m)
		}
	}
	return out
}

// minInliers scales the inlier minimum to sparse images: at most a quarter
// of the smaller image's features, but never below 8, the fewest that
// determine F. Images with thousands of features keep the given minimum;
// landmark sets such as CMU Hotel's 30 per image could otherwise never
// verify a pair seen from afar.
func minInliers(given, features int) int {
	return min(given, max(8, (features+3)/4))
}

func count(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// essentialToFundamental returns F = K_J⁻ᵀ E K_I⁻¹.
func essentialToFundamental(e [9]float64, ci, cj geom.Intrinsics) [9]float64 {
	ki := [9]float64{1 / ci.Fx, 0, -ci.Cx / ci.Fx, 0, 1 / ci.Fy, -ci.Cy / ci.Fy, 0, 0, 1}
	kj := [9]float64{1 / cj.Fx, 0, -cj.Cx / cj.Fx, 0, 1 / cj.Fy, -cj.Cy / cj.Fy, 0, 0, 1}
	return geom.Mul3(geom.Transpose3(kj), geom.Mul3(e, ki))
}

// TransferError is the distance between H·a and b, in pixels (+Inf when a
// maps to infinity).
func TransferError(h [9]float64, a, b geom.Point) float64 {
	w := h[6]*a.X + h[7]*a.Y + h[8]
	if w == 0 {
		return math.Inf(1)
	}
	x := (h[0]*a.X + h[1]*a.Y + h[2]) / w
	y := (h[3]*a.X + h[4]*a.Y + h[5]) / w
	return math.Hypot(x-b.X, y-b.Y)
}

// SampsonError is the first-order geometric error of the correspondence
// a ↔ b under the fundamental matrix f (bᵀ F a = 0), in pixels.
func SampsonError(f [9]float64, a, b geom.Point) float64 {
	e, d := sampsonTerms(f, a, b)
	if d == 0 {
		return math.Inf(1)
	}
	return math.Abs(e) / math.Sqrt(d)
}

// sampsonTerms returns the Sampson distance's numerator bᵀ F a and its
// squared denominator, the squared norms of the two epipolar lines' normals.
func sampsonTerms(f [9]float64, a, b geom.Point) (e, d float64) {
	fa0 := f[0]*a.X + f[1]*a.Y + f[2]
	fa1 := f[3]*a.X + f[4]*a.Y + f[5]
	fa2 := f[6]*a.X + f[7]*a.Y + f[8]
	ftb0 := f[0]*b.X + f[3]*b.Y + f[6]
	ftb1 := f[1]*b.X + f[4]*b.Y + f[7]
	return b.X*fa0 + b.Y*fa1 + fa2, fa0*fa0 + fa1*fa1 + ftb0*ftb0 + ftb1*ftb1
}

// guidedMatches returns the mutual nearest descriptors among the feature
// pairs within thr of the model, joined with the inliers that do not
// conflict with them, one-to-one and sorted by A. The descriptor distance
// of a guided match is capped by maxDist (0: the largest among the
// inliers).
func guidedMatches(vi, vj *View, dim int, r *Verified, thr, maxDist, ratio float64) []Match {
	if maxDist <= 0 {
		maxDist = math.Inf(1)
	}
	g := geom.NewGrid(vj.Points, max(thr, 4))
	na, nb := len(vi.Points), len(vj.Points)
	// The nearest and second nearest candidate of each a and of each b.
	type near2 struct {
		best   int32
		d1, d2 float32
	}
	inf := float32(math.Inf(1))
	nA := make([]near2, na)
	nB := make([]near2, nb)
	for i := range nA {
		nA[i] = near2{-1, inf, inf}
	}
	for i := range nB {
		nB[i] = near2{-1, inf, inf}
	}
	offer := func(n *near2, k int32, d float32) {
		switch {
		case d < n.d1 || d == n.d1 && k < n.best:
			n.d2 = n.d1
			n.best, n.d1 = k, d
		case d < n.d2:
			n.d2 = d
		}
	}
	visit := func(a int, b int32) {
		d := SquaredDistance(vi.Desc[a*dim:(a+1)*dim], vj.Desc[int(b)*dim:int(b+1)*dim])
		offer(&nA[a], b, d)
		offer(&nB[b], int32(a), d)
	}
	if r.Model == Homography {
		// A disc as small as the model's error rarely holds a second
		// candidate but the same blob detected again with another
		// orientation: mutual nearest neighbours suffice.
		ratio = 1
	}
	thr2 := 1 / (ratio * ratio)
	pass := func(n near2) bool {
		return float64(n.d1) <= maxDist && (math.IsInf(float64(n.d2), 1) || thr2*float64(n.d1) < float64(n.d2))
	}
	for a, p := range vi.Points {
		switch r.Model {
		case Homography:
			h := r.Matrix
			hinv, invOK := geom.Inverse3(h)
			w := h[6]*p.X + h[7]*p.Y + h[8]
			if w == 0 {
				continue
			}
			x := (h[0]*p.X + h[1]*p.Y + h[2]) / w
			y := (h[3]*p.X + h[4]*p.Y + h[5]) / w
			g.Near(x, y, thr, func(b int32) {
				if TransferError(h, p, vj.Points[b]) <= thr && (!invOK || TransferError(hinv, vj.Points[b], p) <= thr) {
					visit(a, b)
				}
			})
		default:
			f := r.F
			// The epipolar line of a in J: l = F a.
			l := EpipolarLine(f, p)
			// Sampson error ≥ distance to the line only up to the factor
			// |l₁₂|/√(|l₁₂|² + |Fᵀb|²) ≤ 1, so a band of thr around the
			// line holds every candidate.
			g.AlongLine(l, thr, func(b int32) {
				if SampsonError(f, p, vj.Points[b]) <= thr {
					visit(a, b)
				}
			})
		}
	}
	usedA := make([]bool, na)
	usedB := make([]bool, nb)
	var out []Match
	for a, n := range nA {
		b := n.best
		if b >= 0 && nB[b].best == int32(a) && pass(n) && pass(nB[b]) {
			out = append(out, Match{A: int32(a), B: b})
			usedA[a], usedB[b] = true, true
		}
	}
	for _, m := range r.Matches {
		if !usedA[m.A] && !usedB[m.B] {
			out = append(out, m)
			usedA[m.A], usedB[m.B] = true, true
		}
	}
	// Keep the ratio of the inliers where they survive (guided ones have 0).
	kept := map[[2]int32]float32{}
	for _, m := range r.Matches {
		kept[[2]int32{m.A, m.B}] = m.Ratio
	}
	for k := range out {
		out[k].Ratio = kept[[2]int32{out[k].A, out[k].B}]
	}
	sort.Slice(out, func(x, y int) bool { return out[x].A < out[y].A })
	return out
}

// EpipolarLine is F p: the line l₀x + l₁y + l₂ = 0 in image J on which
// the match of p (image I) lies when F maps I to J.
func EpipolarLine(f [9]float64, p geom.Point) [3]float64 {
	return [3]float64{f[0]*p.X + f[1]*p.Y + f[2], f[3]*p.X + f[4]*p.Y + f[5], f[6]*p.X + f[7]*p.Y + f[8]}
}

// Agrees reports whether a ↔ b (pixels of images I and J) fits the pair's
// verified model within thr pixels: Sampson distance under F (or the F an
// essential matrix implies), transfer error both ways under H. A rejected
// pair agrees with nothing.
func (r *Verified) Agrees(a, b geom.Point, thr float64) bool {
	switch r.Model {
	case Homography:
		if TransferError(r.Matrix, a, b) > thr {
			return false
		}
		hinv, ok := geom.Inverse3(r.Matrix)
		return !ok || TransferError(hinv, b, a) <= thr
	case Fundamental, Essential:
		return SampsonError(r.F, a, b) <= thr
	}
	return false
}
