// Exact two-nearest-neighbour search from float32 matrix products
// (cblas_sgemm, OpenBLAS), the ratio test's inner loop at BLAS speed.
#ifndef CLEARMATCH_NN_H
#define CLEARMATCH_NN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// cm_nearest2 finds, for each of the nq query rows (dim floats each,
// row-major), its two nearest train rows by squared Euclidean distance,
// with exactly the distances and tie rule of the reference brute-force
// matcher (pairwise.BruteForce: four float32 accumulators; the lower index
// wins a tie). Candidates come from -2·Q·Tᵀ (sgemm) plus the norms, tiled by
// tile query rows (tile·nt floats of scratch); every candidate that the
// rounding error bound cannot rule out is rescored exactly. best, second,
// d1 and d2 have nq entries (second = -1, d2 = +Inf when nt = 1). When back
// is not NULL it receives, for each train row, its nearest query row (same
// distances and tie rule), from the same products. nq, nt > 0. It returns
// NULL or a malloc'ed error message (free with cm_free_string).
const char *cm_nearest2(const float *q, int nq, const float *t, int nt, int dim, int tile,
                        int32_t *best, int32_t *second, float *d1, float *d2, int32_t *back);

// cm_nearest2_int8 is cm_nearest2 with the candidates chosen from 8-bit
// integer products (AMX or AVX-512 VNNI; mode as cm_int8_kernel takes it)
// instead of sgemm: same answer, bit for bit. It applies when every value
// is finite and non-negative (SIFT, RootSIFT) and dim·255² < 2^24;
// otherwise, or without the instructions, it sets *done to 0 and computes
// nothing.
const char *cm_nearest2_int8(const float *q, int nq, const float *t, int nt, int dim, int32_t *best,
                             int32_t *second, float *d1, float *d2, int32_t *back, int mode, int *done);

// cm_int8_kernel_name names the kernel cm_nearest2_int8 uses in mode: "AMX",
// "AVX-512 VNNI" or "" (none).
const char *cm_int8_kernel_name(int mode);

// cm_blas_single_thread asks OpenBLAS for one thread per call: clearmatch
// runs pairs on its own workers.
void cm_blas_single_thread(void);

// cm_blas_corename is the kernel family OpenBLAS chose at load time.
const char *cm_blas_corename(void);

#ifdef __cplusplus
}
#endif
#endif
