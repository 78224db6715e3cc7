// C interface to OpenCV's calib3d robust estimators (not wrapped by gocv
// v0.31.0): homography, fundamental and essential matrices with MAGSAC++.
#ifndef CLEARMATCH_GEOM_H
#define CLEARMATCH_GEOM_H

#ifdef __cplusplus
extern "C" {
#endif

// Model kinds of cm_find_model.
enum { CM_HOMOGRAPHY = 0, CM_FUNDAMENTAL = 1, CM_ESSENTIAL = 2 };

// cm_find_model estimates a model of kind from n correspondences (p1[2i],
// p1[2i+1]) ↔ (p2[2i], p2[2i+1]) with OpenCV's USAC MAGSAC++ (threshold in
// the points' units; essential matrices take normalized coordinates, an
// identity camera). On success it fills model (3×3, row-major), mask (n
// bytes, 1 = inlier) and *found (0 when OpenCV found no model). It returns
// NULL or a malloc'ed error message (free with cm_free_string); it never
// throws.
const char *cm_find_model(int kind, const double *p1, const double *p2, int n, double thr,
                          double conf, int max_iters, double *model, unsigned char *mask,
                          int *found);

#ifdef __cplusplus
}
#endif
#endif
