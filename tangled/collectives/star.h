/**
 * @file star.h
 * @brief The parameter server's exchange as two collectives of a star: rank 0 sums every
 *        other rank's vector, and sends one vector to each (chapters 3, 6).
 */
#ifndef DPS_STAR_H
#define DPS_STAR_H

#include <stddef.h>

#include "comm.h"

/**
 * At rank 0 of @p c: add @p scale times each other rank's vector into @p buf, received in
 * rank order into @p scratch (@p count floats on c's device each). 0, or -1 with @p err.
 */
int star_gather_sum(Comm *c, float *buf, float *scratch, size_t count, float scale, char *err);
/** At rank 0 of @p c: send @p buf (@p count floats) to every other rank, in rank order. */
int star_send_all(Comm *c, const float *buf, size_t count, char *err);

#endif
