#include "geom.h"

#include <cstdlib>
#include <cstring>
#include <exception>

#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>

static const char *geom_dupstr(const char *s) {
	size_t n = std::strlen(s) + 1;
	char *out = static_cast<char *>(std::malloc(n));
	if (out) std::memcpy(out, s, n);
	return out;
}

const char *cm_find_model(int kind, const double *p1, const double *p2, int n, double thr,
                          double conf, int max_iters, double *model, unsigned char *mask,
                          int *found) {
	*found = 0;
	std::memset(mask, 0, static_cast<size_t>(n));
	try {
		// The Mats wrap the caller's memory: no copies, nothing to free.
		cv::Mat a(n, 2, CV_64F, const_cast<double *>(p1));
		cv::Mat b(n, 2, CV_64F, const_cast<double *>(p2));
		cv::Mat m, out;
		switch (kind) {
		case CM_HOMOGRAPHY:
			out = cv::findHomography(a, b, cv::USAC_MAGSAC, thr, m, max_iters, conf);
			break;
		case CM_FUNDAMENTAL:
			out = cv::findFundamentalMat(a, b, cv::USAC_MAGSAC, thr, conf, max_iters, m);
			break;
		case CM_ESSENTIAL:
			out = cv::findEssentialMat(a, b, cv::Mat::eye(3, 3, CV_64F), cv::USAC_MAGSAC, conf, thr,
			                           max_iters, m);
			break;
		default:
			return geom_dupstr("unknown model kind");
		}
		if (out.empty() || out.rows < 3 || out.cols != 3) return nullptr;
		cv::Mat d;
		out.rowRange(0, 3).convertTo(d, CV_64F);
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) model[3 * r + c] = d.at<double>(r, c);
		if (m.total() != static_cast<size_t>(n)) return geom_dupstr("inlier mask of the wrong size");
		cv::Mat m8;
		m.reshape(1, n).convertTo(m8, CV_8U);
		for (int i = 0; i < n; i++) mask[i] = m8.at<unsigned char>(i, 0) ? 1 : 0;
		*found = 1;
		return nullptr;
	} catch (const std::exception &e) {
		return geom_dupstr(e.what());
	} catch (...) {
		return geom_dupstr("unknown OpenCV error");
	}
}
