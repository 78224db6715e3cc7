package eval

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/geom"
	"gonum.org/v1/gonum/mat"
)

// SfM evaluation: a reconstruction's cameras against ground-truth cameras,
// the accepted protocol of Strecha et al.'s benchmark as openMVG's
// SfM_quality_evaluation runs it: a similarity fitted on the camera centres,
// then position error (in the ground truth's units) and rotation error (in
// degrees) of every camera, with median, mean and maximum.

// Similarity maps x to S·R·x + T.
type Similarity struct {
	S float64
	R [3][3]float64
	T [3]float64
}

// Apply maps a point.
func (s Similarity) Apply(x [3]float64) [3]float64 {
	var y [3]float64
	for i := 0; i < 3; i++ {
		y[i] = s.T[i]
		for k := 0; k < 3; k++ {
			y[i] += s.S * s.R[i][k] * x[k]
		}
	}
	return y
}

// umeyamaRotation returns U·diag(sgn)·Vᵀ from the SVD U·Σ·Vᵀ of a 3×3
// matrix, sgn (1, 1, ±1) making it a rotation: the rotation nearest to
// the matrix (or, for a covariance, the one that best maps one set onto
// the other).
func umeyamaRotation(u, v *mat.Dense) (r [3][3]float64, sgn [3]float64) {
	sgn = [3]float64{1, 1, 1}
	if mat.Det(u)*mat.Det(v) < 0 {
		sgn[2] = -1
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				r[i][j] += u.At(i, k) * sgn[k] * v.At(j, k)
			}
		}
	}
	return r, sgn
}

// Umeyama fits the similarity that maps src onto dst with the least sum of
// squared distances (Umeyama, "Least-squares estimation of transformation
// parameters between two point patterns", IEEE PAMI 1991): closed form, so
// it is the least-squares optimum the refinement of openMVG's evaluation
// converges to. It needs at least three points not on one line.
func Umeyama(src, dst [][3]float64) (Similarity, error) {
	n := len(src)
	if n != len(dst) || n < 3 {
		return Similarity{}, fmt.Errorf("a similarity needs at least 3 matched cameras, have %d", min(n, len(dst)))
	}
	var ms, md [3]float64
	for i := range src {
		for k := 0; k < 3; k++ {
			ms[k] += src[i][k] / float64(n)
			md[k] += dst[i][k] / float64(n)
		}
	}
	cov := mat.NewDense(3, 3, nil)
	varS := 0.0
	for i := range src {
		for r := 0; r < 3; r++ {
			a := dst[i][r] - md[r]
			for c := 0; c < 3; c++ {
				cov.Set(r, c, cov.At(r, c)+a*(src[i][c]-ms[c])/float64(n))
			}
			d := src[i][r] - ms[r]
			varS += d * d / float64(n)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(cov, mat.SVDFull) || !(varS > 0) {
		return Similarity{}, errors.New("the cameras' centres are degenerate (all in one place)")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	d := svd.Values(nil)
	if d[1] <= 1e-12*d[0] {
		return Similarity{}, errors.New("the cameras' centres are degenerate (on one line)")
	}
	var s Similarity
	var sgn [3]float64
	s.R, sgn = umeyamaRotation(&u, &v)
	trace := 0.0
	for k := 0; k < 3; k++ {
		trace += d[k] * sgn[k]
	}
	s.S = trace / varS
	m := s.Apply(ms)
	for k := 0; k < 3; k++ {
		s.T[k] = md[k] - m[k]
	}
	return s, nil
}

// SfMReport is the evaluation of one reconstruction against ground truth.
type SfMReport struct {
	Images     int `json:"images"`     // ground-truth cameras
	Registered int `json:"registered"` // of them, in the model
	// Missing lists ground-truth images the model did not register.
	Missing []string `json:"missing,omitempty"`
	// Position errors after the similarity, in the ground truth's units;
	// rotation errors in degrees.
	Position Summary `json:"position_error"`
	Rotation Summary `json:"rotation_error_deg"`
	// The rotation errors split in two: the part every camera shares
	// (the chordal mean of their errors in the truth's frame, its angle)
	// and each camera's error once that part is taken out. The shared
	// part is mostly the similarity's own error about the axes its
	// centres leave weakly determined (cameras along a facade: the
	// rotation about that line, set by the centres' small spread off it
	// and their position errors there); the rest is the model's.
	RotationCommon   float64 `json:"rotation_common_deg"`
	RotationResidual Summary `json:"rotation_residual_deg"`
	// Alignment-free errors over every pair (i, j), i before j by name,
	// of registered images: the angle between the model's and the
	// truth's relative rotation R_j·R_iᵀ, and between their directions
	// from camera j to camera i in camera j's frame, R_j·(C_i − C_j), the
	// relative pose's translation up to scale (degrees). They do not
	// depend on the similarity, which a nearly collinear or coplanar set
	// of centres leaves ill-determined about the line or plane.
	Pairs             int     `json:"pairs"`
	RelativeRotation  Summary `json:"relative_rotation_error_deg"`
	RelativeDirection Summary `json:"relative_direction_error_deg"`
	// Per image, sorted by name.
	PerImage []ImageError `json:"per_image"`
	Scale    float64      `json:"scale"` // the similarity's scale
	// Spread is the median distance of the ground truth's camera centres
	// (every one, registered or not) from their centroid, in its units:
	// the scene's size, which gives errors in a reconstruction's
	// arbitrary unit a scale.
	Spread float64 `json:"spread"`
	// From the model: points, mean track length, mean reprojection error
	// (pixels, the mean over points, as COLMAP's model_analyzer).
	Points           int     `json:"points"`
	MeanTrackLength  float64 `json:"mean_track_length"`
	MeanReprojection float64 `json:"mean_reprojection_error_px"`
	// Intrinsics compares the model's cameras with the true ones, when
	// the model has a cameras file and some registered image's true K
	// (with its size) can be compared; nil otherwise, as against another
	// model, whose Cameras carry no K.
	Intrinsics *IntrinsicsError `json:"intrinsics,omitempty"`
}

// IntrinsicsError compares each registered image's camera with its true
// K, scaled to the camera's image size (Strecha's K counts pixel centres
// from 0, COLMAP's from 0.5: c_colmap = (c + 0.5)·s). Images whose size
// is not the truth's scaled alike in x and y (within 1%: a crop) are left
// out.
type IntrinsicsError struct {
	Images int `json:"images"` // images compared
	// Focal is the error of the mean of fx and fy, in percent of the
	// true one.
	Focal Summary `json:"focal_error_pct"`
	// PrincipalPoint is the distance of the model's principal point
	// from the true one, in the model's pixels.
	PrincipalPoint Summary `json:"principal_point_error_px"`
	// Centre is the image centre's distance from the true principal
	// point: the error of assuming the principal point at the centre, as
	// COLMAP does unless told to refine it.
	Centre Summary `json:"centre_offset_px"`
}

// Summary is the median, mean and maximum of a set of errors.
type Summary struct {
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Max    float64 `json:"max"`
}

// ImageError is one camera's errors.
type ImageError struct {
	Name     string  `json:"name"`
	Position float64 `json:"position_error"`
	Rotation float64 `json:"rotation_error_deg"`
}

func summarize(v []float64) Summary {
	if len(v) == 0 {
		return Summary{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Summary{Median: med, Mean: sum / float64(len(s)), Max: s[len(s)-1]}
}

// EvaluateSfM aligns the model's camera centres to the ground truth's (by
// image name) with Umeyama's similarity and measures every registered
// camera's position and rotation error, then the alignment-free relative
// rotation and direction errors of every pair of registered images.
func EvaluateSfM(m *colmap.Model, gt map[string]datasets.Camera) (*SfMReport, error) {
	var names []string
	for n := range gt {
		names = append(names, n)
	}
	sort.Strings(names)
	r := &SfMReport{Images: len(gt), Points: m.Points}
	var src, dst [][3]float64
	var reg []string
	for _, n := range names {
		c, ok := m.Poses[n]
		if !ok {
			r.Missing = append(r.Missing, n)
			continue
		}
		reg = append(reg, n)
		src = append(src, c.C)
		dst = append(dst, gt[n].C)
	}
	r.Registered = len(reg)
	if m.Points > 0 {
		r.MeanTrackLength = float64(m.Observations) / float64(m.Points)
		r.MeanReprojection = m.ErrorSum / float64(m.Points)
	}
	if len(reg) == 0 {
		return nil, errors.New("no image of the ground truth is in the model (names must match: NAME.camera for image NAME)")
	}
	sim, err := Umeyama(src, dst)
	if err != nil {
		return nil, err
	}
	r.Scale = sim.S
	var centroid [3]float64
	for _, n := range names {
		for k := range centroid {
			centroid[k] += gt[n].C[k] / float64(len(names))
		}
	}
	dist := make([]float64, len(names))
	for i, n := range names {
		c := gt[n].C
		dist[i] = math.Sqrt(sq(c[0]-centroid[0]) + sq(c[1]-centroid[1]) + sq(c[2]-centroid[2]))
	}
	r.Spread = summarize(dist).Median
	var pos, rot []float64
	for i, n := range reg {
		p := sim.Apply(src[i])
		d := math.Sqrt(sq(p[0]-dst[i][0]) + sq(p[1]-dst[i][1]) + sq(p[2]-dst[i][2]))
		// The model's rotation in the ground truth's world: R_m·Rsᵀ; its
		// error against R_gt is the angle of R_m·Rsᵀ·R_gtᵀ.
		e := geom.Mul3(geom.Mul3(flat(m.Poses[n].R), geom.Transpose3(flat(sim.R))), geom.Transpose3(flat(gt[n].R)))
		ang := geom.RotationAngle(e)
		pos, rot = append(pos, d), append(rot, ang)
		r.PerImage = append(r.PerImage, ImageError{Name: n, Position: d, Rotation: ang})
	}
	r.Position, r.Rotation = summarize(pos), summarize(rot)
	r.RotationCommon, r.RotationResidual = splitRotation(m, gt, reg, sim)
	var relRot, relDir []float64
	for i, a := range reg {
		for _, b := range reg[i+1:] {
			ma, mb, ga, gb := m.Poses[a], m.Poses[b], gt[a], gt[b]
			// (R_b·R_aᵀ)·(G_b·G_aᵀ)ᵀ
			mr := geom.Mul3(flat(mb.R), geom.Transpose3(flat(ma.R)))
			gr := geom.Mul3(flat(gb.R), geom.Transpose3(flat(ga.R)))
			relRot = append(relRot, geom.RotationAngle(geom.Mul3(mr, geom.Transpose3(gr))))
			// Coincident centres have no direction: such a pair counts
			// in the rotations only.
			if ang, ok := vectorAngle(direction(mb, ma.C), direction(gb.Pose, ga.C)); ok {
				relDir = append(relDir, ang)
			}
		}
	}
	r.Pairs = len(relRot)
	r.RelativeRotation, r.RelativeDirection = summarize(relRot), summarize(relDir)
	if m.Intrinsics != nil {
		if in := intrinsicsError(m, gt, reg); in.Images > 0 {
			r.Intrinsics = in
		}
	}
	return r, nil
}

// splitRotation returns the angle of the rotation the registered
// cameras' errors share and the summary of each one's error without it.
// Camera i's error in the truth's world frame is W_i = G_iᵀ·R_i·Rsᵀ (the
// same angle as its rotation error); their shared part is the rotation
// nearest to ΣW_i (the chordal L2 mean), Q, and the rest is W_i·Qᵀ.
func splitRotation(m *colmap.Model, gt map[string]datasets.Camera, reg []string, sim Similarity) (float64, Summary) {
	w := make([][9]float64, len(reg))
	sum := mat.NewDense(3, 3, nil)
	for i, n := range reg {
		w[i] = geom.Mul3(geom.Transpose3(flat(gt[n].R)), geom.Mul3(flat(m.Poses[n].R), geom.Transpose3(flat(sim.R))))
		for k := 0; k < 9; k++ {
			sum.Set(k/3, k%3, sum.At(k/3, k%3)+w[i][k])
		}
	}
	var svd mat.SVD
	if len(reg) == 0 || !svd.Factorize(sum, mat.SVDFull) {
		return 0, Summary{}
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	qr, _ := umeyamaRotation(&u, &v)
	q := flat(qr)
	rest := make([]float64, len(reg))
	for i := range w {
		rest[i] = geom.RotationAngle(geom.Mul3(w[i], geom.Transpose3(q)))
	}
	return geom.RotationAngle(q), summarize(rest)
}

// intrinsicsError compares the intrinsics of the registered images reg.
func intrinsicsError(m *colmap.Model, gt map[string]datasets.Camera, reg []string) *IntrinsicsError {
	var focal, pp, centre []float64
	for _, n := range reg {
		in, ok := m.Intrinsics[n]
		g := gt[n]
		if !ok || g.Width <= 0 || g.Height <= 0 {
			continue
		}
		sx, sy := float64(in.Width)/float64(g.Width), float64(in.Height)/float64(g.Height)
		if math.Abs(sx/sy-1) > 0.01 {
			continue
		}
		fx, fy := g.K[0][0]*sx, g.K[1][1]*sy
		cx, cy := (g.K[0][2]+0.5)*sx, (g.K[1][2]+0.5)*sy
		focal = append(focal, 100*math.Abs((in.Fx+in.Fy)/(fx+fy)-1))
		pp = append(pp, math.Hypot(in.Cx-cx, in.Cy-cy))
		centre = append(centre, math.Hypot(float64(in.Width)/2-cx, float64(in.Height)/2-cy))
	}
	return &IntrinsicsError{Images: len(focal), Focal: summarize(focal), PrincipalPoint: summarize(pp), Centre: summarize(centre)}
}

// direction is c − cam.C in cam's frame: cam.R·(c − cam.C).
func direction(cam geom.Pose, c [3]float64) [3]float64 {
	d := [3]float64{c[0] - cam.C[0], c[1] - cam.C[1], c[2] - cam.C[2]}
	var v [3]float64
	for k := 0; k < 3; k++ {
		v[k] = cam.R[k][0]*d[0] + cam.R[k][1]*d[1] + cam.R[k][2]*d[2]
	}
	return v
}

// vectorAngle is the angle between a and b in degrees; ok is false when
// either is zero.
func vectorAngle(a, b [3]float64) (float64, bool) {
	na := math.Sqrt(sq(a[0]) + sq(a[1]) + sq(a[2]))
	nb := math.Sqrt(sq(b[0]) + sq(b[1]) + sq(b[2]))
	if na == 0 || nb == 0 {
		return 0, false
	}
	cross := [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	sin := math.Sqrt(sq(cross[0])+sq(cross[1])+sq(cross[2])) / (na * nb)
	cos := (a[0]*b[0] + a[1]*b[1] + a[2]*b[2]) / (na * nb)
	return math.Atan2(sin, cos) * 180 / math.Pi, true
}

func sq(x float64) float64 { return x * x }

// flat is a 3×3 matrix row-major, as pairwise's Mul3 and Transpose3 take it.
func flat(a [3][3]float64) [9]float64 {
	return [9]float64{a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[1][2], a[2][0], a[2][1], a[2][2]}
}
