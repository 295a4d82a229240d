/* Chapter 10's exercises: the functions you write. See the end of chapter 10 in the book
 * (make book) for what each must do and how it is tested.
 *
 * Besides the C library, an exercise may call only error_set() and xcalloc() of the book's
 * library, the members of the Comm or the Device it is handed, and, for the exercise a
 * "may call: NAME:" line below names, the functions that line lists (no other exercise may
 * call them): tests/grade.sh refuses any other call, naming it. The other declarations of
 * the headers included here are the book's, for the types and for reading.
 * may call: onebit_all_reduce: onebit_compress ring_all_gather
 */
#ifndef DPS_EX_CH10_H
#define DPS_EX_CH10_H

#include <stddef.h>
#include <stdint.h>

#include "collectives.h"
#include "comm.h"
#include "util.h"

/* The bytes of one rank's message in 10.2: its n bits packed, then its hi and its lo. */
static inline size_t onebit_message_bytes(size_t n)
{
    return (n + 7) / 8 + 2 * sizeof(float);
}

/* 10.1: the best 1-bit code, with error feedback. g[0..n) is this rank's gradient and
 * error[0..n) the error it carries; M[i] = g[i] + error[i] (in float). Write one bit an entry
 * (bit i in byte i / 8 of bits, at bit i % 8 of that byte, the least significant first; the
 * unused high bits of the last byte 0, whatever the buffer held; (n + 7) / 8 bytes, none for
 * n = 0) and two values: bit i decodes to D[i] = bit i ? *hi : *lo. Choose the bits and the
 * two values together to make the sum over i of (M[i] - D[i])^2 the smallest any choice of
 * them makes it (not only smaller than a split at zero gives); which set is sent as hi is
 * yours to choose, and a value no bit uses is 0. The tests allow a millionth of that sum
 * more, and the rounding of the two values to float; n reaches a million. Then leave in
 * error[i] what this step did not send, M[i] - D[i] in float, so that over any number of
 * steps the values decoded plus the error still held add up to the gradients given. g and
 * error hold n floats, in the host's memory. */
void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *hi,
                     float *lo);

/* 10.2: the all-reduce of 1-bit gradients. grad[0..n) holds this rank's gradient on entry.
 * 1. Compress it, with error feedback, by onebit_compress(grad, error, n, ...) into this
 *    rank's message: its bits, then its hi and its lo (4 bytes each, unaligned),
 *    onebit_message_bytes(n) bytes in all, at scratch + rank * onebit_message_bytes(n).
 * 2. All-gather the messages: afterwards every rank's scratch holds every rank's message,
 *    rank q's at scratch + q * onebit_message_bytes(n) (ring_all_gather of collectives.h,
 *    or c->sendrecv). A rank sends at most (N - 1) * onebit_message_bytes(n) bytes.
 * 3. grad[i] = (float)(s / N), where s is D_0[i] + D_1[i] + ... + D_{N-1}[i], rank q's
 *    decoded value D_q[i] = its bit i ? its hi : its lo, added in double in rank order:
 *    every rank ends with the same bits.
 * error holds this rank's error feedback (n floats), which onebit_compress updates; scratch
 * holds N * onebit_message_bytes(n) bytes; all are in the host's memory (c->dev is the CPU).
 * Call onebit_compress, and do not define it in this file: make test links your own 10.1,
 * the grader the book's (so your 10.1 does not count here). Every rank calls with the same
 * n. Returns 0, or -1 with the comm's error in err. */
int onebit_all_reduce(Comm *c, float *grad, float *error, size_t n, void *scratch, char *err);

/* 10.3: QSGD's stochastic quantizer (Alistarh et al. 2017) with s levels, 1 <= s <= 127.
 * norm is the square root of the sum of v[i]^2 over i, summed in double in the order of i
 * (its root in double too); *scale = (float)norm. Entry i is sent as a level q[i] in [-s, s]
 * and stands for norm * q[i] / s (every level 0 when norm is 0). The level is drawn at random
 * with noise[i]: read it as a number drawn uniformly from [0, 1), noise[i] / 2^32, and let
 * it alone (with v, s and the norm) decide q[i]. Choose how, so that over uniformly random
 * noise the expected value of norm * q[i] / s is v[i] and its variance is the least any such
 * choice can have. The tests sweep each entry's noise over [0, 1) in even steps and judge the
 * levels' mean and variance over the sweep, each to within a step. v and noise hold n
 * entries, q receives n; nothing else is written. */
void qsgd_quantize(const float *v, const uint32_t *noise, size_t n, int s, int8_t *q,
                   float *scale);

#endif
