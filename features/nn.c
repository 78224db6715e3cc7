// Exact two-nearest-neighbour search from sgemm; see nn.h.
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "nn.h"
#include "nncommon.h"

extern void openblas_set_num_threads(int);
extern char *openblas_get_corename(void);

void cm_blas_single_thread(void) { openblas_set_num_threads(1); }

const char *cm_blas_corename(void) { return openblas_get_corename(); }

const char *cm_nearest2(const float *q, int nq, const float *t, int nt, int dim, int tile,
                        int32_t *best, int32_t *second, float *d1, float *d2, int32_t *back) {
	if (nq <= 0 || nt <= 0 || dim <= 0) return nn_error("cm_nearest2: empty input");
	if (tile <= 0) tile = 256;
	if (tile > nq) tile = nq;
	const char *err = NULL;
	float *prod = malloc((size_t)tile * nt * sizeof *prod);
	float *qn = malloc((size_t)nq * sizeof *qn);
	float *tn = malloc((size_t)nt * sizeof *tn);
	double *qlen = malloc((size_t)nq * sizeof *qlen);
	double *tlen = malloc((size_t)nt * sizeof *tlen);
	column *cols = back ? calloc((size_t)nt, sizeof *cols) : NULL;
	// Per train row: the rescoring margin, and the running minimum plus it.
	float *cmargin = back ? malloc((size_t)nt * sizeof *cmargin) : NULL;
	float *cthr = back ? malloc((size_t)nt * sizeof *cthr) : NULL;
	if (!prod || !qn || !tn || !qlen || !tlen || (back && (!cols || !cmargin || !cthr))) {
		err = nn_error("cm_nearest2: out of memory");
		goto done;
	}
	// Norms, and the largest of each side for the error bound.
	double qmax = 0, tmax = 0;
	for (int i = 0; i < nq; i++) {
		double s = 0;
		for (int k = 0; k < dim; k++) s += (double)q[(size_t)i * dim + k] * q[(size_t)i * dim + k];
		qn[i] = (float)s;
		qlen[i] = sqrt(s);
		if (qlen[i] > qmax) qmax = qlen[i];
	}
	for (int j = 0; j < nt; j++) {
		double s = 0;
		for (int k = 0; k < dim; k++) s += (double)t[(size_t)j * dim + k] * t[(size_t)j * dim + k];
		tn[j] = (float)s;
		tlen[j] = sqrt(s);
		if (tlen[j] > tmax) tmax = tlen[j];
	}
	// Rounding: a float32 dot product of dim terms is within dim·u·|x||y|
	// of the real one in any summation order (u = 2^-24), the reference's
	// squared distance within (dim+3)·u·d², d² ≤ (|x|+|y|)², and the few
	// additions around them add a few u more. The bound below is twice the
	// sum of both errors, so a row the bound does not exclude is rescored.
	const double c = 4.0 * (dim + 8) * ldexp(1.0, -24);
	for (int j = 0; j < nt && cols; j++) {
		cols[j].min = INFINITY;
		cmargin[j] = (float)(2 * c * (qmax + tlen[j]) * (qmax + tlen[j]));
		cthr[j] = INFINITY;
	}
	for (int r0 = 0; r0 < nq; r0 += tile) {
		int m = nq - r0 < tile ? nq - r0 : tile;
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, nt, dim, -2.0f,
		            q + (size_t)r0 * dim, dim, t, dim, 0.0f, prod, nt);
		for (int r = 0; r < m; r++) {
			int i = r0 + r;
			const float *row = prod + (size_t)r * nt;
			// The two smallest approximate values tn + (-2 q·t); the
			// query's own norm is the same for every train row.
			float v1 = INFINITY, v2 = INFINITY;
			for (int j = 0; j < nt; j++) {
				float v = tn[j] + row[j];
				if (v < v2) {
					if (v < v1) {
						v2 = v1;
						v1 = v;
					} else {
						v2 = v;
					}
				}
			}
			double e = c * (qlen[i] + tmax) * (qlen[i] + tmax);
			float thr = nt == 1 ? INFINITY : (float)((double)v2 + 2 * e);
			nearest2 n = nearest2_none();
			const float *qi = q + (size_t)i * dim;
			for (int j = 0; j < nt; j++) {
				if (!(tn[j] + row[j] <= thr)) continue;
				nearest2_offer(&n, j, sqdist(qi, t + (size_t)j * dim, dim));
			}
			best[i] = n.b1;
			second[i] = n.b2;
			d1[i] = n.e1;
			d2[i] = n.e2;
			if (!cols) continue;
			float qi2 = qn[i];
			for (int j = 0; j < nt; j++) {
				float v = qi2 + row[j];
				if (!(v <= cthr[j])) continue;
				column *cj = &cols[j];
				if (v < cj->min) {
					cj->min = v;
					cthr[j] = v + cmargin[j];
				}
				if (!column_add(cj, i, v, cmargin[j])) {
					err = nn_error("cm_nearest2: out of memory");
					goto done;
				}
			}
		}
	}
	for (int j = 0; j < nt && cols; j++) {
		column *cj = &cols[j];
		float margin = cmargin[j];
		int32_t b = -1;
		float eb = INFINITY;
		for (int k = 0; k < cj->n; k++) {
			if (!(cj->val[k] <= cj->min + margin)) continue;
			float d = sqdist(t + (size_t)j * dim, q + (size_t)cj->row[k] * dim, dim);
			if (d < eb || (d == eb && cj->row[k] < b)) {
				b = cj->row[k];
				eb = d;
			}
		}
		back[j] = b;
	}
done:
	if (cols) {
		for (int j = 0; j < nt; j++) {
			free(cols[j].row);
			free(cols[j].val);
		}
		free(cols);
	}
	free(cmargin);
	free(cthr);
	free(prod);
	free(qn);
	free(tn);
	free(qlen);
	free(tlen);
	return err;
}
