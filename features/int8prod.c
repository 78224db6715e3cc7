// Integer products of 8-bit rows; see int8prod.h. x86-64 only: elsewhere
// there is no kernel and the matcher keeps float32 products.
#include "int8prod.h"
#include "nn.h"

#if !defined(__x86_64__)
int cm_int8_kernel(int mode) { return CM_INT8_NONE; }
const char *cm_int8_kernel_name(int mode) { return ""; }
void cm_int8_products(int kernel, const uint8_t *q, int m, int depth, const int8_t *tp, int ntpad,
                      int32_t *prod) {}
#else
#include <cpuid.h>
#include <immintrin.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define AMX __attribute__((target("amx-tile,amx-int8")))

enum { NB = CM_INT8_BLOCK, MR = 8 };

static int has_vnni(void) {
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}

// AMX needs the processor's flags (CPUID leaf 7: EDX bits 24 and 25) and
// the kernel's permission for the tile data (arch_prctl
// ARCH_REQ_XCOMP_PERM, Linux 5.16+), asked once per process.
static int has_amx(void) {
	static int state; // 0 unknown, 1 yes, 2 no
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	if (s) return s == 1;
	unsigned a, b, c, d;
	int ok = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 24 & 1) && (d >> 25 & 1);
#ifdef __linux__
	if (ok) ok = syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) == 0;
#else
	ok = 0;
#endif
	__atomic_store_n(&state, ok ? 1 : 2, __ATOMIC_RELEASE);
	return ok;
}

int cm_int8_kernel(int mode) {
	if (!has_vnni()) return CM_INT8_NONE;
	if (mode != CM_INT8_NO_AMX && has_amx()) return CM_INT8_AMX;
	return CM_INT8_VNNI;
}

const char *cm_int8_kernel_name(int mode) {
	switch (cm_int8_kernel(mode)) {
	case CM_INT8_AMX: return "AMX";
	case CM_INT8_VNNI: return "AVX-512 VNNI";
	}
	return "";
}

// vnni8 writes the products of MR query rows with 2·NB packed train rows
// into c, row stride ldc.
VNNI static void vnni8(const uint8_t *q, int depth, const int8_t *b, int32_t *c, int ldc) {
	__m512i acc[MR][2];
	for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
	const int8_t *b1 = b + (size_t)NB * depth;
	for (int g = 0; g < depth / 4; g++) {
		__m512i x0 = _mm512_loadu_si512(b + (size_t)g * 4 * NB);
		__m512i x1 = _mm512_loadu_si512(b1 + (size_t)g * 4 * NB);
#pragma GCC unroll 8
		for (int r = 0; r < MR; r++) {
			int32_t a;
			memcpy(&a, q + (size_t)r * depth + 4 * g, 4);
			__m512i av = _mm512_set1_epi32(a);
			acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], av, x0);
			acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], av, x1);
		}
	}
	for (int r = 0; r < MR; r++) {
		_mm512_storeu_si512(c + (size_t)r * ldc, acc[r][0]);
		_mm512_storeu_si512(c + (size_t)r * ldc + NB, acc[r][1]);
	}
}

static void vnni_products(const uint8_t *q, int m, int depth, const int8_t *tp, int ntpad, int32_t *prod) {
	for (int jb = 0; jb < ntpad; jb += 2 * NB) {
		for (int r = 0; r < m; r += MR) {
			vnni8(q + (size_t)r * depth, depth, tp + (size_t)jb * depth, prod + (size_t)r * ntpad + jb,
			      ntpad);
		}
	}
}

// The tile configuration (palette 1): every tile 16 rows of 64 bytes.
typedef struct {
	uint8_t palette, start_row, reserved[14];
	uint16_t colsb[16];
	uint8_t rows[16];
} __attribute__((packed)) tile_config;

AMX static void amx_config(void) {
	tile_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.palette = 1;
	for (int i = 0; i < 8; i++) {
		cfg.rows[i] = 16;
		cfg.colsb[i] = 64;
	}
	_tile_loadconfig(&cfg);
}

// amx_products128 multiplies with AMX at depth 128 (SIFT's; other depths
// take VNNI): tiles 4-7 hold 32 query rows' two halves for the whole call,
// so that each block of 16 train rows costs two loads (tiles 2-3,
// TDPBUSD's packed second operand) and two stores of 16 × 16 products
// (tiles 0-1).
AMX static void amx_products128(const uint8_t *q, int m, const int8_t *tp, int ntpad, int32_t *prod) {
	amx_config();
	size_t ld = (size_t)ntpad * sizeof *prod;
	for (int r = 0; r < m; r += 32) {
		const uint8_t *a = q + (size_t)r * 128;
		_tile_loadd(4, a, 128);
		_tile_loadd(5, a + 64, 128);
		_tile_loadd(6, a + 16 * 128, 128);
		_tile_loadd(7, a + 16 * 128 + 64, 128);
		for (int jb = 0; jb < ntpad; jb += NB) {
			const int8_t *b = tp + (size_t)jb * 128;
			_tile_loadd(2, b, 64);
			_tile_loadd(3, b + 64 * NB, 64);
			_tile_zero(0);
			_tile_zero(1);
			_tile_dpbusd(0, 4, 2);
			_tile_dpbusd(1, 6, 2);
			_tile_dpbusd(0, 5, 3);
			_tile_dpbusd(1, 7, 3);
			int32_t *c = prod + (size_t)r * ntpad + jb;
			_tile_stored(0, c, ld);
			_tile_stored(1, c + (size_t)16 * ntpad, ld);
		}
	}
	_tile_release();
}

void cm_int8_products(int kernel, const uint8_t *q, int m, int depth, const int8_t *tp, int ntpad,
                      int32_t *prod) {
	if (kernel == CM_INT8_AMX && depth == 128) {
		amx_products128(q, m, tp, ntpad, prod);
	} else {
		vnni_products(q, m, depth, tp, ntpad, prod);
	}
}
#endif
