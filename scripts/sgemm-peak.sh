#!/bin/bash
# sgemm-peak.sh: OpenBLAS's sustained SGEMM rate at the BLAS matcher's
# shape (tiles of 1024 query rows × N train rows × 128), one thread and all,
# with the kernel family OpenBLAS picks and the ones clearmatch restarts
# with (internal/cli/blascore.go). Needs gcc and libopenblas-dev.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/peak.c" <<'C'
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
char *openblas_get_corename(void);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv) {
	int m = 1024, n = atoi(argv[1]), k = 128, reps = 0;
	float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * n * k), *c = malloc(sizeof(float) * m * n);
	for (int i = 0; i < m * k; i++) a[i] = (float)rand() / RAND_MAX;
	for (int i = 0; i < n * k; i++) b[i] = (float)rand() / RAND_MAX;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, -2.0f, a, k, b, k, 0.0f, c, n);
	double t0 = now(), t;
	do {
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, -2.0f, a, k, b, k, 0.0f, c, n);
		reps++;
	} while ((t = now() - t0) < 2);
	printf("%-10s %d×%d×%d: %.1f GFLOP/s\n", openblas_get_corename(), m, n, k, 2.0 * m * n * k * reps / t / 1e9);
	return 0;
}
C
gcc -O2 -o "$work/peak" "$work/peak.c" -lopenblas
for threads in 1 $(nproc); do
	for core in "" Haswell SkylakeX; do
		echo -n "threads $threads, core ${core:-default}: "
		OPENBLAS_NUM_THREADS=$threads OPENBLAS_CORETYPE=$core "$work/peak" 16000
	done
done
