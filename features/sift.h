// C interface to the OpenCV calls clearmatch needs beyond gocv v0.31.0:
// SIFT with parameters, and SIFT descriptors at given keypoints.
#ifndef CLEARMATCH_SIFT_H
#define CLEARMATCH_SIFT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	float x, y, size, angle, response;
	int octave;
} CMKeyPoint;

// CMKeyPoints is a malloc'ed array; free it with cm_keypoints_free.
typedef struct {
	CMKeyPoint *kps;
	int n;
} CMKeyPoints;

// img and desc are cv::Mat pointers (gocv's Mat.Ptr()). The functions
// return NULL on success or a malloc'ed error message (free with
// cm_free_string); they never throw.
const char *cm_sift_detect_compute(void *img, int nfeatures, double contrast, double edge,
                                   CMKeyPoints *out, void *desc);
const char *cm_sift_compute(void *img, const CMKeyPoint *kps, int n, void *desc);
void cm_keypoints_free(CMKeyPoints kp);
void cm_free_string(const char *s);
void cm_set_num_threads(int n);
// cm_trim_memory returns the C heap's free memory to the system (glibc's
// malloc_trim; nothing elsewhere).
void cm_trim_memory(void);

#ifdef __cplusplus
}
#endif
#endif
