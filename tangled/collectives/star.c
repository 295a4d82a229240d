/**
 * @file star.c
 * @brief The star's two collectives: rank 0 gathers and sums, rank 0 sends to all.
 */
#line 277 "chapters/03-ps.nw"
#include "star.h"

int star_gather_sum(Comm *c, float *buf, float *scratch, size_t count, float scale, char *err)
{
#line 282 "chapters/03-ps.nw"
    for (int q = 1; q < c->size; q++) {
        if (c->recv(c, q, scratch, count * sizeof *buf, err))
            return -1;
        c->dev->axpy(count, scale, scratch, buf);
    }
    return 0;
}

int star_send_all(Comm *c, const float *buf, size_t count, char *err)
{
    for (int q = 1; q < c->size; q++)
        if (c->send(c, q, buf, count * sizeof *buf, err))
            return -1;
    return 0;
}
