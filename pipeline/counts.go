package pipeline

import "github.com/clearmatch/clearmatch/pairwise"

// VerificationCounts summarizes Verified: pairs tried, verified, and
// verified per model.
type VerificationCounts struct {
	Tried    int            `json:"pairs_tried"`
	Verified int            `json:"pairs_verified"`
	Models   map[string]int `json:"models"`
	// Planar counts the verified pairs a homography explains nearly as
	// well as F or E (COLMAP's PLANAR_OR_PANORAMIC), whatever their model.
	Planar  int `json:"planar"`
	Inliers int `json:"inliers"`
	Guided  int `json:"guided_matches"`
}

// CountVerification summarizes the verification of r.
func (r *Result) CountVerification() VerificationCounts {
	c := VerificationCounts{Tried: len(r.Verified), Models: map[string]int{}}
	for _, v := range r.Verified {
		if v.Model == pairwise.NoModel {
			continue
		}
		c.Verified++
		c.Models[v.Model.String()]++
		if v.Planar {
			c.Planar++
		}
		c.Inliers += v.Inliers
		c.Guided += v.Guided
	}
	return c
}
