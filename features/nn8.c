// Exact two-nearest-neighbour search from 8-bit integer products (AMX or
// AVX-512 VNNI, int8prod.c); see nn.h. The products only choose
// candidates: every train row that the quantization and rounding bound
// cannot rule out is rescored with the reference's float32 distance, so the
// answer is cm_nearest2's, bit for bit. x86-64 only.
#include <stddef.h>

#include "nn.h"

#if !defined(__x86_64__)
const char *cm_nearest2_int8(const float *q, int nq, const float *t, int nt, int dim, int32_t *best,
                             int32_t *second, float *d1, float *d2, int32_t *back, int mode, int *done) {
	*done = 0;
	return NULL;
}
#else
#include <float.h>
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nncommon.h"
#include "int8prod.h"

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,fma")))

// Query rows go to the products (int8prod.c) ROWS at a time (a multiple of
// CM_INT8_ROWS); train rows are packed in blocks of NB.
enum { ROWS = 4 * CM_INT8_ROWS, NB = CM_INT8_BLOCK };

// One side's 8-bit version: rows of dim4 bytes (dim rounded up to
// CM_INT8_DEPTH, zero padded), the scale, and per row the norms (in
// double) of the row, of its dequantized value and of the difference.
typedef struct {
	uint8_t *u;    // round(x·scale), 0..255
	double scale;  // 255 / the side's largest value
	double *len;   // |x|
	double *qlen;  // |round(x·scale)/scale|
	double *rlen;  // |x - round(x·scale)/scale|
	float *norm;   // |x|² as float, the reference's norm term
	int32_t *sum;  // Σ round(x·scale), for the signed shift
} quantized;

static void quantized_free(quantized *s) {
	free(s->u);
	free(s->len);
	free(s->qlen);
	free(s->rlen);
	free(s->norm);
	free(s->sum);
}

// largest returns the largest of the n values of x, or -1 when one is
// negative or not finite.
AVX512 static double largest(const float *x, size_t n) {
	__m512 top = _mm512_setzero_ps(), lo = _mm512_setzero_ps(), hi = _mm512_set1_ps(FLT_MAX);
	size_t k = 0;
	for (; k + 16 <= n; k += 16) {
		__m512 v = _mm512_loadu_ps(x + k);
		__mmask16 ok = _mm512_cmp_ps_mask(v, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(v, hi, _CMP_LE_OQ);
		if (ok != 0xFFFF) return -1;
		top = _mm512_max_ps(top, v);
	}
	float t = _mm512_reduce_max_ps(top);
	for (; k < n; k++) {
		if (!(x[k] >= 0 && x[k] <= FLT_MAX)) return -1;
		if (x[k] > t) t = x[k];
	}
	return t;
}

// quantize_row quantizes one row of dim values to u and sets its norms
// (squared: l = |x|², ql = |x'|², rl = |x - x'|², x' = round(x·scale)/scale)
// and the sum of its bytes. The bounds only need the norms of the bytes
// actually chosen, in any summation order.
AVX512 static void quantize_row(const float *x, int dim, double scale, uint8_t *u, double *l, double *ql,
                                double *rl, int32_t *sum) {
	__m512d s = _mm512_set1_pd(scale), half = _mm512_set1_pd(0.5);
	__m512d al = _mm512_setzero_pd(), aq = al, ar = al;
	__m256i as = _mm256_setzero_si256(), top = _mm256_set1_epi32(255);
	int k = 0;
	for (; k + 8 <= dim; k += 8) {
		__m512d v = _mm512_cvtps_pd(_mm256_loadu_ps(x + k));
		__m256i q = _mm256_min_epi32(_mm512_cvttpd_epi32(_mm512_add_pd(_mm512_mul_pd(v, s), half)), top);
		_mm_storel_epi64((__m128i *)(u + k), _mm256_cvtepi32_epi8(q));
		__m512d back = _mm512_div_pd(_mm512_cvtepi32_pd(q), s);
		__m512d r = _mm512_sub_pd(v, back);
		al = _mm512_fmadd_pd(v, v, al);
		aq = _mm512_fmadd_pd(back, back, aq);
		ar = _mm512_fmadd_pd(r, r, ar);
		as = _mm256_add_epi32(as, q);
	}
	double sl = _mm512_reduce_add_pd(al), sq = _mm512_reduce_add_pd(aq), sr = _mm512_reduce_add_pd(ar);
	int32_t n[8];
	_mm256_storeu_si256((__m256i *)n, as);
	int32_t total = n[0] + n[1] + n[2] + n[3] + n[4] + n[5] + n[6] + n[7];
	for (; k < dim; k++) {
		double v = x[k];
		int q = (int)(v * scale + 0.5);
		if (q > 255) q = 255;
		u[k] = (uint8_t)q;
		double back = q / scale;
		sl += v * v;
		sq += back * back;
		sr += (v - back) * (v - back);
		total += q;
	}
	*l = sl;
	*ql = sq;
	*rl = sr;
	*sum = total;
}

// quantize fills s from n rows of x (rows padded to pad rows of zeros). It
// returns 0 when the rows are not all finite and non-negative (the caller
// then uses float32 products), -1 when out of memory.
static int quantize(const float *x, int n, int pad, int dim, int dim4, quantized *s) {
	double top = largest(x, (size_t)n * dim);
	if (top < 0) return 0;
	s->scale = top > 0 ? 255.0 / top : 1;
	s->u = calloc((size_t)pad * dim4, 1);
	s->len = malloc((size_t)n * sizeof *s->len);
	s->qlen = malloc((size_t)n * sizeof *s->qlen);
	s->rlen = malloc((size_t)n * sizeof *s->rlen);
	s->norm = malloc((size_t)n * sizeof *s->norm);
	s->sum = malloc((size_t)n * sizeof *s->sum);
	if (!s->u || !s->len || !s->qlen || !s->rlen || !s->norm || !s->sum) return -1;
	for (int i = 0; i < n; i++) {
		double l, ql, rl;
		quantize_row(x + (size_t)i * dim, dim, s->scale, s->u + (size_t)i * dim4, &l, &ql, &rl, &s->sum[i]);
		s->norm[i] = (float)l;
		s->len[i] = sqrt(l);
		s->qlen[i] = sqrt(ql);
		s->rlen[i] = sqrt(rl);
	}
	return 1;
}

// pack lays out the train side as int8prod.h describes: blocks of NB rows,
// in each block for each group of 4 columns the NB rows' 4 bytes, shifted
// by -128 into int8 (the instructions multiply unsigned by signed bytes).
static int8_t *pack(const quantized *t, int ntpad, int dim4) {
	int8_t *p = malloc((size_t)ntpad * dim4);
	if (!p) return NULL;
	for (int j = 0; j < ntpad; j++) {
		int b = j / NB, l = j % NB;
		for (int g = 0; g < dim4 / 4; g++) {
			for (int k = 0; k < 4; k++) {
				int v = (int)t->u[(size_t)j * dim4 + 4 * g + k] - 128;
				p[(size_t)b * NB * dim4 + (size_t)g * 4 * NB + 4 * l + k] = (int8_t)v;
			}
		}
	}
	return p;
}

// Approximate value of one product: base + (p + off)·scale, the float path's
// norm plus -2 q·t. Both passes over a row compute it the same way.
AVX512 static inline __m512 approx16(const int32_t *p, __m512 base, __m512i off, __m512 scale, __mmask16 m) {
	__m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, p), off);
	return _mm512_fmadd_ps(_mm512_cvtepi32_ps(x), scale, base);
}

static inline __mmask16 tail_mask(int j, int nt) {
	int left = nt - j;
	return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
}

// lanes_top2 reduces per-lane smallest and second-smallest values to the
// two smallest of all.
static void lanes_top2(const float *a, const float *b, float *v1, float *v2) {
	float best = INFINITY, next = INFINITY;
	for (int l = 0; l < 16; l++) {
		if (a[l] < best) {
			next = best < next ? best : next;
			best = a[l];
		} else if (a[l] < next) {
			next = a[l];
		}
		if (b[l] < next) next = b[l];
	}
	*v1 = best;
	*v2 = next;
}

// A query row's running two smallest values, per lane (column mod 16):
// the second smallest of all is at most every lane's second.
typedef struct {
	float m1[16], m2[16];
} lanes;

// lanes_seed sets st from the first chunk of a product row.
AVX512 static void lanes_seed(const int32_t *p, const float *tn, int n, int32_t off, float scale, lanes *st) {
	__m512 m1 = _mm512_set1_ps(INFINITY), m2 = m1;
	__m512i o = _mm512_set1_epi32(off);
	__m512 s = _mm512_set1_ps(scale);
	for (int j = 0; j < n; j += 16) {
		__mmask16 m = tail_mask(j, n);
		__m512 b = _mm512_mask_loadu_ps(_mm512_set1_ps(INFINITY), m, tn + j);
		__m512 v = approx16(p + j, b, o, s, m);
		m2 = _mm512_min_ps(m2, _mm512_max_ps(m1, v));
		m1 = _mm512_min_ps(m1, v);
	}
	_mm512_storeu_ps(st->m1, m1);
	_mm512_storeu_ps(st->m2, m2);
}

// lanes_bound is an upper bound of the second smallest value so far.
AVX512 static float lanes_bound(const lanes *st) { return _mm512_reduce_min_ps(_mm512_loadu_ps(st->m2)); }

// A pass's findings over one row chunk.
typedef struct {
	int nrow, ncol; // entries of row and col
	int32_t *row;   // columns whose row value (base tn) is at most thr
	int32_t *col;   // columns whose column value (base qn) is at most cthr
} pass_hits;

// pass makes one pass over a product row chunk of n columns for both
// directions: the row values (tn[j] + product), which also lower st unless
// it is NULL, and, when cthr is not NULL, the column values (qn +
// product), each as approx16 computes it.
AVX512 static void pass(const int32_t *p, const float *tn, int n, int32_t off, float scale, float thr,
                        float qn, const float *cthr, lanes *st, pass_hits *h) {
	__m512 m1 = _mm512_set1_ps(INFINITY), m2 = m1;
	if (st) {
		m1 = _mm512_loadu_ps(st->m1);
		m2 = _mm512_loadu_ps(st->m2);
	}
	__m512i o = _mm512_set1_epi32(off);
	__m512 s = _mm512_set1_ps(scale), t = _mm512_set1_ps(thr), q = _mm512_set1_ps(qn);
	h->nrow = h->ncol = 0;
	for (int j = 0; j < n; j += 16) {
		__mmask16 m = tail_mask(j, n);
		__m512 x = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_maskz_loadu_epi32(m, p + j), o));
		__m512 v = _mm512_fmadd_ps(x, s, _mm512_mask_loadu_ps(_mm512_set1_ps(INFINITY), m, tn + j));
		m2 = _mm512_min_ps(m2, _mm512_max_ps(m1, v));
		m1 = _mm512_min_ps(m1, v);
		unsigned hit = _mm512_mask_cmp_ps_mask(m, v, t, _CMP_LE_OQ);
		for (; hit; hit &= hit - 1) h->row[h->nrow++] = j + __builtin_ctz(hit);
		if (!cthr) continue;
		__m512 c = _mm512_fmadd_ps(x, s, q);
		hit = _mm512_mask_cmp_ps_mask(m, c, _mm512_maskz_loadu_ps(m, cthr + j), _CMP_LE_OQ);
		for (; hit; hit &= hit - 1) h->col[h->ncol++] = j + __builtin_ctz(hit);
	}
	if (st) {
		_mm512_storeu_ps(st->m1, m1);
		_mm512_storeu_ps(st->m2, m2);
	}
}

// value is one product's approximate value, as approx16 computes it.
AVX512 static float value(int32_t p, float base, int32_t off, float scale) {
	__m128 x = _mm_set_ss((float)(p + off));
	return _mm_cvtss_f32(_mm_fmadd_ss(x, _mm_set_ss(scale), _mm_set_ss(base)));
}

// One search's shared state: both sides quantized, the packed train rows,
// the error-bound terms, and for the mutual search the per-train-row
// candidate lists of cm_nearest2.
typedef struct {
	const float *q, *t;
	int nq, nt, dim, depth, ntpad, kernel;
	quantized qs, ts;
	int8_t *tp;
	float scale; // -2/(sq·st): the approximate value is base + (Q·T)·scale
	double c, grow, tmax, rtmax;
	column *cols; // mutual only
	float *cmargin, *cthr;
} search;

// Columns of products per chunk: ROWS × CHUNK products (64 KiB) stay in
// cache while they are scanned. Of 32, 64 and 128 rows × 128 to 512
// columns, 128 × 128 was the fastest on BenchmarkMatcher with AMX (the
// mutual search, which the pipeline runs only with -mutual, was as fast
// with each within the run-to-run spread).
enum { CHUNK = 128 };

// row_margin is the query row's rescoring margin (twice its error bound).
// A row's approximate value differs from the reference's distance (less
// the query's norm) by the float rounding that cm_nearest2 bounds with c,
// plus twice the quantization error of the dot product:
// |q·t - q'·t'| ≤ |q-q'||t| + |q'||t-t'| (Cauchy-Schwarz), with q' and t'
// the dequantized rows; the integer product is exact. Bounds are inflated
// by 2^-20 against the rounding of their own double arithmetic.
static double row_margin(const search *s, int i) {
	const quantized *qs = &s->qs;
	double e = s->c * (qs->len[i] + s->tmax) * (qs->len[i] + s->tmax) +
	           2 * (qs->rlen[i] * s->tmax + qs->qlen[i] * s->rtmax) * s->grow;
	return 2 * e * s->grow;
}

// column_margins sets each train row's margin for the mutual search, the
// same bound with the query side's largest terms.
static void column_margins(search *s) {
	double qmax = 0, rqmax = 0, qqmax = 0;
	for (int i = 0; i < s->nq; i++) {
		if (s->qs.len[i] > qmax) qmax = s->qs.len[i];
		if (s->qs.rlen[i] > rqmax) rqmax = s->qs.rlen[i];
		if (s->qs.qlen[i] > qqmax) qqmax = s->qs.qlen[i];
	}
	for (int j = 0; j < s->nt; j++) {
		double l = s->ts.len[j];
		double e = s->c * (qmax + l) * (qmax + l) + 2 * (rqmax * l + qqmax * s->ts.rlen[j]) * s->grow;
		s->cols[j].min = INFINITY;
		s->cmargin[j] = (float)(2 * e * s->grow);
		s->cthr[j] = INFINITY;
	}
}

// scan_chunk takes query row i's products with train rows j0..j0+n-1 in one
// pass: it lowers the row's running values st, keeps in cand the train
// rows within the margin of their bound, and in the mutual search offers
// the row to the lists of the train rows it may be nearest to (the column
// thresholds, as in cm_nearest2). A row's first chunk (seeded 0) first
// seeds st, so that not all of it is kept.
AVX512 static int scan_chunk(search *s, int i, const int32_t *row, int j0, int n, lanes *st, int *seeded, float margin,
                      column *cand, pass_hits *h) {
	int32_t off = 128 * s->qs.sum[i];
	const float *tn = s->ts.norm + j0;
	float qn = s->qs.norm[i];
	int first = !*seeded;
	if (first) {
		lanes_seed(row, tn, n, off, s->scale, st);
		*seeded = 1;
	}
	float thr = s->nt == 1 ? INFINITY : (float)((double)lanes_bound(st) + margin);
	pass(row, tn, n, off, s->scale, thr, qn, s->cols ? s->cthr + j0 : NULL, first ? NULL : st, h);
	cand->min = s->nt == 1 ? INFINITY : lanes_bound(st);
	for (int k = 0; k < h->nrow; k++) {
		int j = h->row[k];
		if (!column_add(cand, j0 + j, value(row[j], tn[j], off, s->scale), margin)) return 0;
	}
	for (int k = 0; k < h->ncol; k++) {
		int j = j0 + h->col[k];
		float val = value(row[h->col[k]], qn, off, s->scale);
		column *cj = &s->cols[j];
		if (val < cj->min) {
			cj->min = val;
			s->cthr[j] = val + s->cmargin[j];
		}
		if (!column_add(cj, i, val, s->cmargin[j])) return 0;
	}
	return 1;
}

// rescore gives query row i its two nearest train rows among the
// candidates within the margin of the final second value, in train order
// (so the lower index wins a tie, as in the reference).
static void rescore(const search *s, int i, const lanes *st, const column *cand, float margin, int32_t *best,
                    int32_t *second, float *d1, float *d2) {
	float v1, v2;
	lanes_top2(st->m1, st->m2, &v1, &v2);
	float thr = s->nt == 1 ? INFINITY : (float)((double)v2 + margin);
	nearest2 n = nearest2_none();
	const float *qi = s->q + (size_t)i * s->dim;
	for (int k = 0; k < cand->n; k++) {
		if (!(cand->val[k] <= thr)) continue;
		int j = cand->row[k];
		nearest2_offer(&n, j, sqdist(qi, s->t + (size_t)j * s->dim, s->dim));
	}
	best[i] = n.b1;
	second[i] = n.b2;
	d1[i] = n.e1;
	d2[i] = n.e2;
}

// nearest_back sets back[j], train row j's nearest query row, from its
// candidate list.
static void nearest_back(const search *s, int32_t *back) {
	for (int j = 0; j < s->nt; j++) {
		const column *cj = &s->cols[j];
		int32_t b = -1;
		float eb = INFINITY;
		for (int k = 0; k < cj->n; k++) {
			if (!(cj->val[k] <= cj->min + s->cmargin[j])) continue;
			float d = sqdist(s->t + (size_t)j * s->dim, s->q + (size_t)cj->row[k] * s->dim, s->dim);
			if (d < eb || (d == eb && cj->row[k] < b)) {
				b = cj->row[k];
				eb = d;
			}
		}
		back[j] = b;
	}
}

// rows runs the ROWS query rows from r0: products chunk by chunk, each
// chunk scanned while it is in cache, then the candidates rescored.
static int rows(search *s, int r0, int32_t *prod, column *cand, pass_hits *hits, int32_t *best,
                int32_t *second, float *d1, float *d2) {
	int m = s->nq - r0 < ROWS ? s->nq - r0 : ROWS;
	lanes st[ROWS];
	int seeded[ROWS];
	float margin[ROWS];
	for (int r = 0; r < m; r++) {
		seeded[r] = 0;
		cand[r].n = 0;
		margin[r] = (float)row_margin(s, r0 + r);
	}
	for (int j0 = 0; j0 < s->ntpad; j0 += CHUNK) {
		int w = s->ntpad - j0 < CHUNK ? s->ntpad - j0 : CHUNK;
		int n = s->nt - j0 < w ? s->nt - j0 : w;
		cm_int8_products(s->kernel, s->qs.u + (size_t)r0 * s->depth, ROWS, s->depth,
		                 s->tp + (size_t)j0 * s->depth, w, prod);
		for (int r = 0; r < m; r++) {
			if (!scan_chunk(s, r0 + r, prod + (size_t)r * w, j0, n, &st[r], &seeded[r], margin[r], &cand[r], hits))
				return 0;
		}
	}
	for (int r = 0; r < m; r++) rescore(s, r0 + r, &st[r], &cand[r], margin[r], best, second, d1, d2);
	return 1;
}

static void search_free(search *s) {
	if (s->cols) {
		for (int j = 0; j < s->nt; j++) {
			free(s->cols[j].row);
			free(s->cols[j].val);
		}
	}
	free(s->cols);
	free(s->cmargin);
	free(s->cthr);
	free(s->tp);
	quantized_free(&s->qs);
	quantized_free(&s->ts);
}

// search_init quantizes and packs; it returns 1, 0 when the rows do not
// suit 8-bit products, -1 when out of memory.
static int search_init(search *s, int mutual) {
	int nqpad = (s->nq + ROWS - 1) / ROWS * ROWS;
	s->depth = (s->dim + CM_INT8_DEPTH - 1) / CM_INT8_DEPTH * CM_INT8_DEPTH;
	s->ntpad = (s->nt + 2 * NB - 1) / (2 * NB) * (2 * NB);
	int ok = quantize(s->q, s->nq, nqpad, s->dim, s->depth, &s->qs);
	if (ok > 0) ok = quantize(s->t, s->nt, s->ntpad, s->dim, s->depth, &s->ts);
	if (ok <= 0) return ok;
	s->tp = pack(&s->ts, s->ntpad, s->depth);
	if (mutual) {
		s->cols = calloc((size_t)s->nt, sizeof *s->cols);
		s->cmargin = malloc((size_t)s->nt * sizeof *s->cmargin);
		s->cthr = malloc((size_t)s->nt * sizeof *s->cthr);
	}
	if (!s->tp || (mutual && (!s->cols || !s->cmargin || !s->cthr))) return -1;
	s->c = 4.0 * (s->dim + 8) * ldexp(1.0, -24);
	s->grow = 1 + ldexp(1.0, -20);
	for (int j = 0; j < s->nt; j++) {
		if (s->ts.len[j] > s->tmax) s->tmax = s->ts.len[j];
		if (s->ts.rlen[j] > s->rtmax) s->rtmax = s->ts.rlen[j];
	}
	// Q·T = Q·(T-128) + 128 ΣQ, the shift scan_chunk adds back.
	s->scale = (float)(-2.0 / (s->qs.scale * s->ts.scale));
	if (mutual) column_margins(s);
	return 1;
}

const char *cm_nearest2_int8(const float *q, int nq, const float *t, int nt, int dim, int32_t *best,
                             int32_t *second, float *d1, float *d2, int32_t *back, int mode, int *done) {
	*done = 0;
	search s = {.q = q, .t = t, .nq = nq, .nt = nt, .dim = dim, .kernel = cm_int8_kernel(mode)};
	// The integer sum of dim products of 255² must stay exact in int32
	// and in float32 (2^24).
	if (s.kernel == CM_INT8_NONE || nq <= 0 || nt <= 0 || dim <= 0 || (double)dim * 255 * 255 >= 16777216.0)
		return NULL;
	int32_t *prod = malloc((size_t)ROWS * CHUNK * sizeof *prod);
	pass_hits hits = {.row = malloc(CHUNK * sizeof(int32_t)), .col = malloc(CHUNK * sizeof(int32_t))};
	column *cand = calloc(ROWS, sizeof *cand);
	int ok = prod && hits.row && hits.col && cand ? search_init(&s, back != NULL) : -1;
	for (int r0 = 0; ok > 0 && r0 < nq; r0 += ROWS) ok = rows(&s, r0, prod, cand, &hits, best, second, d1, d2);
	if (ok > 0 && back) nearest_back(&s, back);
	for (int r = 0; cand && r < ROWS; r++) {
		free(cand[r].row);
		free(cand[r].val);
	}
	free(cand);
	free(hits.row);
	free(hits.col);
	free(prod);
	search_free(&s);
	*done = ok > 0;
	return ok < 0 ? nn_error("cm_nearest2: out of memory") : NULL;
}
#endif
