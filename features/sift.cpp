#include "sift.h"

#include <cstdlib>
#ifdef __GLIBC__
#include <malloc.h>  // malloc_trim
#endif
#include <cstring>
#include <exception>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>

static const char *dupstr(const char *s) {
	size_t n = std::strlen(s) + 1;
	char *out = static_cast<char *>(std::malloc(n));
	if (out) std::memcpy(out, s, n);
	return out;
}

const char *cm_sift_detect_compute(void *img, int nfeatures, double contrast, double edge,
                                   CMKeyPoints *out, void *desc) {
	out->kps = nullptr;
	out->n = 0;
	try {
		cv::Ptr<cv::SIFT> sift = cv::SIFT::create(nfeatures, 3, contrast, edge, 1.6);
		std::vector<cv::KeyPoint> kps;
		sift->detectAndCompute(*static_cast<cv::Mat *>(img), cv::noArray(), kps,
		                       *static_cast<cv::Mat *>(desc));
		out->n = static_cast<int>(kps.size());
		if (out->n > 0) {
			out->kps = static_cast<CMKeyPoint *>(std::malloc(sizeof(CMKeyPoint) * kps.size()));
			if (!out->kps) return dupstr("out of memory");
			for (size_t i = 0; i < kps.size(); i++) {
				const cv::KeyPoint &k = kps[i];
				out->kps[i] = CMKeyPoint{k.pt.x, k.pt.y, k.size, k.angle, k.response, k.octave};
			}
		}
		return nullptr;
	} catch (const std::exception &e) {
		return dupstr(e.what());
	} catch (...) {
		return dupstr("unknown OpenCV error");
	}
}

const char *cm_sift_compute(void *img, const CMKeyPoint *kps, int n, void *desc) {
	try {
		std::vector<cv::KeyPoint> in(n);
		for (int i = 0; i < n; i++) {
			in[i] = cv::KeyPoint(kps[i].x, kps[i].y, kps[i].size, kps[i].angle, kps[i].response,
			                     kps[i].octave);
		}
		cv::Ptr<cv::SIFT> sift = cv::SIFT::create();
		std::vector<cv::KeyPoint> got = in;
		sift->detectAndCompute(*static_cast<cv::Mat *>(img), cv::noArray(), got,
		                       *static_cast<cv::Mat *>(desc), true);
		if (got.size() != in.size()) return dupstr("SIFT dropped keypoints");
		return nullptr;
	} catch (const std::exception &e) {
		return dupstr(e.what());
	} catch (...) {
		return dupstr("unknown OpenCV error");
	}
}

void cm_keypoints_free(CMKeyPoints kp) { std::free(kp.kps); }
void cm_free_string(const char *s) { std::free(const_cast<char *>(s)); }
void cm_set_num_threads(int n) { cv::setNumThreads(n); }

void cm_trim_memory(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}
