package export

import (
	"errors"
	"fmt"
	"math"

	// A pure-Go SQLite (the C library transpiled to Go): database.db is
	// written without cgo, so export stays buildable with CGO_ENABLED=0.
	_ "modernc.org/sqlite"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// ColmapPairID is COLMAP's pair_id of two image ids (order-free).
func ColmapPairID(id1, id2 int64) int64 { return colmap.PairID(id1, id2) }

// ColmapPair is one verified image pair as COLMAP's two_view_geometries
// holds it.
type ColmapPair struct {
	I, J  int                // image indices, I < J
	Model pairwise.ModelKind // Homography, Fundamental or Essential
	// Planar: a homography explains the pair nearly as well as F or E
	// (COLMAP's PLANAR_OR_PANORAMIC); H is then set beside F and E.
	Planar bool
	// F, E and H map I to J in clearmatch's pixel convention (pixel
	// centres at integers); zero when not estimated.
	F, E, H [9]float64
	// Matches are keypoint index pairs (I's, J's): the track-consistent
	// matches that fit the pair's model.
	Matches [][2]uint32
}

// ColmapPairs restricts the tracks' matches ms to verified geometry: for
// every verified pair of res, the matches between its two images that fit
// its model within res.Threshold. Pairs that were not verified get none
// (their tracks still join through other pairs). dropped counts matches
// left out: those of unverified pairs and those off the model.
func ColmapPairs(res *pipeline.Result, ms []Match) (pairs []ColmapPair, dropped int) {
	byPair := map[[2]int][][2]int{}
	for _, m := range ms {
		a, ka, b, kb := m.A, m.KpA, m.B, m.KpB
		if a > b {
			a, ka, b, kb = b, kb, a, ka
		}
		byPair[[2]int{a, b}] = append(byPair[[2]int{a, b}], [2]int{ka, kb})
	}
	kept, sets := 0, res.Output()
	for k := range res.Verified {
		v := &res.Verified[k]
		if v.Model == pairwise.NoModel {
			continue
		}
		lo, hi := min(v.I, v.J), max(v.I, v.J)
		p := ColmapPair{I: lo, J: hi, Model: v.Model}
		// The model maps v.I to v.J; COLMAP's pair runs from the lower id.
		mat, f, h, planar := v.Matrix, v.F, v.H, v.Planar
		if v.Model == pairwise.Homography {
			h, planar = v.Matrix, true
		}
		if v.I > v.J {
			mat, f = geom.Transpose3(mat), geom.Transpose3(f)
			if planar {
				var ok bool
				if h, ok = geom.Inverse3(h); !ok {
					continue // verification never keeps a singular H
				}
			}
		}
		p.Planar, p.H = planar, h // h is zero unless planar
		switch v.Model {
		case pairwise.Essential:
			p.E, p.F = mat, f
		case pairwise.Fundamental:
			p.F = mat
		}
		thr := res.Threshold(v.I, v.J)
		for _, kk := range byPair[[2]int{lo, hi}] {
			a, b := sets[lo].Point(kk[0]), sets[hi].Point(kk[1])
			if v.I > v.J {
				a, b = b, a
			}
			if v.Agrees(a, b, thr) {
				p.Matches = append(p.Matches, [2]uint32{uint32(kk[0]), uint32(kk[1])})
			}
		}
		kept += len(p.Matches)
		if len(p.Matches) > 0 {
			pairs = append(pairs, p)
		}
	}
	return pairs, len(ms) - kept
}

// toColmapPixels re-expresses a matrix for COLMAP's pixel convention
// (x_colmap = x + 0.5): T maps COLMAP's pixels to ours, so H' = T⁻¹ H T
// and F' = Tᵀ F T. E works on normalized coordinates and is unchanged.
var (
	colmapT    = [9]float64{1, 0, -0.5, 0, 1, -0.5, 0, 0, 1}
	colmapTinv = [9]float64{1, 0, 0.5, 0, 1, 0.5, 0, 0, 1}
)

func colmapH(h [9]float64) [9]float64 { return geom.Mul3(colmapTinv, geom.Mul3(h, colmapT)) }
func colmapF(f [9]float64) [9]float64 {
	return geom.Mul3(geom.Transpose3(colmapT), geom.Mul3(f, colmapT))
}

// ColmapDatabase is everything COLMAP's database.db holds for a run, in
// clearmatch's types.
type ColmapDatabase struct {
	Sets     []*features.Set
	Cameras  []ColmapCamera
	CameraOf []int // camera index of each image
	Pairs    []ColmapPair
}

// Write creates the database at path (which must not exist) with
// colmap.Database.Write: image i gets image_id i+1 and camera c
// camera_id c+1; keypoints move to COLMAP's pixel convention (the first
// pixel's centre at 0.5) with their affine shape from SIFT's scale and
// orientation; F and H are re-expressed for that convention (E works on
// normalized coordinates and is unchanged). A failed write removes the
// file.
func (d *ColmapDatabase) Write(path string) error {
	db, err := d.colmap()
	if err != nil {
		return fmt.Errorf("colmap: %s: %w", path, err)
	}
	return db.Write(path)
}

// colmap converts d to package colmap's types.
func (d *ColmapDatabase) colmap() (*colmap.Database, error) {
	if len(d.CameraOf) != len(d.Sets) {
		return nil, errors.New("one camera per image is needed")
	}
	db := &colmap.Database{Cameras: make([]colmap.Camera, len(d.Cameras)), Images: make([]colmap.Image, len(d.Sets))}
	for c, cam := range d.Cameras {
		db.Cameras[c] = cam.Camera
	}
	for i, s := range d.Sets {
		db.Images[i] = colmap.Image{Name: s.Image, Camera: d.CameraOf[i], Features: func() ([]colmap.Keypoint, []byte, error) { return colmapFeatures(s) }}
	}
	for _, p := range d.Pairs {
		cp, err := p.Colmap()
		if err != nil {
			return nil, fmt.Errorf("pair (%s, %s): %w", d.Sets[p.I].Image, d.Sets[p.J].Image, err)
		}
		db.Pairs = append(db.Pairs, cp)
	}
	return db, nil
}

// colmapFeatures are s's keypoints in COLMAP's pixel convention, with the
// affine shape of SIFT's scale (half the size) and orientation, and its
// descriptors as bytes.
func colmapFeatures(s *features.Set) ([]colmap.Keypoint, []byte, error) {
	kps := make([]colmap.Keypoint, len(s.Keypoints))
	for k, kp := range s.Keypoints {
		scale, ori := float64(kp.Size)/2, float64(kp.Angle)*math.Pi/180
		sn, cs := math.Sincos(ori)
		kps[k] = colmap.Keypoint{X: kp.X + 0.5, Y: kp.Y + 0.5,
			A11: float32(scale * cs), A12: float32(-scale * sn), A21: float32(scale * sn), A22: float32(scale * cs)}
	}
	desc, err := s.DescriptorBytes()
	return kps, desc, err
}

// Colmap is p as COLMAP's two-view geometry: its configuration (planar
// when a homography explains it, whatever its model) and its matrices in
// COLMAP's pixel convention.
func (p ColmapPair) Colmap() (colmap.Pair, error) {
	cp := colmap.Pair{I: p.I, J: p.J, Matches: p.Matches}
	switch p.Model {
	case pairwise.Homography:
		cp.Config, cp.H = colmap.PlanarOrPanoramic, colmapH(p.H)
	case pairwise.Essential:
		cp.Config, cp.E, cp.F = colmap.Calibrated, p.E, colmapF(p.F)
	case pairwise.Fundamental:
		cp.Config, cp.F = colmap.Uncalibrated, colmapF(p.F)
	default:
		return cp, errors.New("no model")
	}
	if p.Planar && p.Model != pairwise.Homography {
		cp.Config, cp.H = colmap.PlanarOrPanoramic, colmapH(p.H)
	}
	return cp, nil
}
