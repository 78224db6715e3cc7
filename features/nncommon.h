// Parts shared by the float32 (nn.c) and 8-bit (nn8.c) two-nearest-neighbour
// searches: the exact rescoring distance and the per-train-row candidate
// lists of the mutual search. Internal to the features package.
#ifndef CLEARMATCH_NNCOMMON_H
#define CLEARMATCH_NNCOMMON_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline const char *nn_error(const char *msg) {
	char *s = malloc(strlen(msg) + 1);
	if (s) strcpy(s, msg);
	return s;
}

// sqdist is pairwise.sqDist, operation for operation, so that the rescored
// distances are bit-identical to the pure-Go reference. It is only called
// from functions compiled for the baseline x86-64 target, which has no
// fused multiply-add for the compiler to contract into.
static inline float sqdist(const float *a, const float *b, int dim) {
	float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int i = 0;
	for (; i + 4 <= dim; i += 4) {
		float e0 = a[i] - b[i], e1 = a[i + 1] - b[i + 1], e2 = a[i + 2] - b[i + 2],
		      e3 = a[i + 3] - b[i + 3];
		s0 += e0 * e0;
		s1 += e1 * e1;
		s2 += e2 * e2;
		s3 += e3 * e3;
	}
	for (; i < dim; i++) {
		float e = a[i] - b[i];
		s0 += e * e;
	}
	return (s0 + s1) + (s2 + s3);
}

// One train row's candidates for its nearest query row: (query row, the
// approximate value qn - 2 q·t) pairs with the value within the margin of
// the running minimum.
typedef struct {
	int32_t *row;
	float *val;
	int n, cap;
	float min;
} column;

// column_add appends (row, v); margin is the column's rescoring margin.
static inline int column_add(column *c, int32_t row, float v, float margin) {
	if (c->n == c->cap) {
		// Drop what the running minimum has since ruled out, then grow.
		int k = 0;
		for (int i = 0; i < c->n; i++) {
			if (c->val[i] <= c->min + margin) {
				c->row[k] = c->row[i];
				c->val[k] = c->val[i];
				k++;
			}
		}
		c->n = k;
		if (c->n == c->cap) {
			int cap = c->cap ? 2 * c->cap : 4;
			int32_t *r = realloc(c->row, (size_t)cap * sizeof *r);
			if (!r) return 0;
			c->row = r;
			float *w = realloc(c->val, (size_t)cap * sizeof *w);
			if (!w) return 0;
			c->val = w;
			c->cap = cap;
		}
	}
	c->row[c->n] = row;
	c->val[c->n] = v;
	c->n++;
	return 1;
}

// nearest2 is a query row's two nearest train rows so far. Offered rows
// in increasing order, a tie keeps the lower index, as the reference does.
typedef struct {
	int32_t b1, b2;
	float e1, e2;
} nearest2;

static inline nearest2 nearest2_none(void) { return (nearest2){-1, -1, INFINITY, INFINITY}; }

static inline void nearest2_offer(nearest2 *n, int32_t j, float d) {
	if (d < n->e1) {
		n->b2 = n->b1;
		n->e2 = n->e1;
		n->b1 = j;
		n->e1 = d;
	} else if (d < n->e2) {
		n->b2 = j;
		n->e2 = d;
	}
}

#endif
