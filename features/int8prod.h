// Integer products of 8-bit descriptor rows, for nn8.c: AVX-512 VNNI or
// AMX, whichever the processor and OS offer. Internal to the features
// package.
#ifndef CLEARMATCH_INT8PROD_H
#define CLEARMATCH_INT8PROD_H

#include <stdint.h>

// Query rows come in multiples of CM_INT8_ROWS, each CM_INT8_DEPTH-padded
// (zero bytes). Train rows come packed in blocks of CM_INT8_BLOCK rows:
// block b holds, for each group g of 4 columns, the block's rows' 4 bytes,
// at byte b·BLOCK·depth + g·4·BLOCK + 4·row + column%4; their count is a
// multiple of 2·CM_INT8_BLOCK.
enum { CM_INT8_ROWS = 32, CM_INT8_BLOCK = 16, CM_INT8_DEPTH = 64 };

enum { CM_INT8_NONE, CM_INT8_VNNI, CM_INT8_AMX };

// Modes of cm_int8_kernel: the best available, or at most VNNI.
enum { CM_INT8_BEST = 0, CM_INT8_NO_AMX = 1 };

// cm_int8_kernel returns the kernel to use: AMX where the processor has it
// and the OS grants this process its tile state, else VNNI where the
// processor has AVX-512 VNNI, else CM_INT8_NONE.
int cm_int8_kernel(int mode);

// cm_int8_products sets prod[r·ntpad + j] = Σ_k q[r][k]·t[j][k] (unsigned
// query bytes times signed train bytes, exact in int32) for the m query
// rows at q (depth bytes each) and the ntpad packed train rows at tp.
void cm_int8_products(int kernel, const uint8_t *q, int m, int depth, const int8_t *tp, int ntpad,
                      int32_t *prod);

#endif
