/**
 * @file coded_ring.c
 * @brief The ring all-reduce with its messages in 16 bits and its sums in 32 (chapter 10).
 */
#line 426 "chapters/10-compress.nw"
#include "coded_ring.h"

#include <string.h>

#include "collectives.h"
#include "launch.h"

#line 490 "chapters/10-compress.nw"
static const char *const dtype_names[] = {"fp32", "bf16", "fp16"};

size_t dtype_bytes(Dtype t)
{
    return t == DTYPE_FP32 ? 4 : 2;
}

const char *dtype_name(Dtype t)
{
    return dtype_names[t];
}

bool dtype_parse(const char *name, Dtype *t)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, dtype_names[i]) == 0) {
            *t = (Dtype)i;
            return true;
        }
    return false;
}
#line 514 "chapters/10-compress.nw"
size_t ring_coded_bytes(size_t count, int size, int rank, Dtype t)
{
    if (size < 2)
        return 0;
    size_t own = chunk_start(count, size, rank + 1) - chunk_start(count, size, rank);
    int after = (rank + 1) % size;
    size_t next = chunk_start(count, size, after + 1) - chunk_start(count, size, after);
    return (2 * count - own - next) * dtype_bytes(t);
}

#line 436 "chapters/10-compress.nw"
int ring_all_reduce_coded(Comm *c, float *buf, size_t count, Dtype t, void *wire, float scale,
                          char *err)
{
#line 375 "chapters/10-compress.nw"
    const size_t w = dtype_bytes(t);
    char *code = wire;
    int n = c->size, r = c->rank, next = (r + 1) % n, prev = (r + n - 1) % n;
    for (int step = 0; step < n - 1; step++) {
        int out = (r - step - 1 + 2 * n) % n, in = (r - step - 2 + 2 * n) % n;
        size_t olo = chunk_start(count, n, out), ohi = chunk_start(count, n, out + 1);
        size_t ilo = chunk_start(count, n, in), ihi = chunk_start(count, n, in + 1);
        launch_phase("coded share-reduce, step %d of %d", step + 1, n - 1);
        c->dev->encode(ohi - olo, t, buf + olo, code + olo * w);
        if (c->sendrecv(c, next, code + olo * w, (ohi - olo) * w, prev, code + ilo * w,
                        (ihi - ilo) * w, err))
            return -1;
        c->dev->decode(ihi - ilo, t, code + ilo * w, buf + ilo, true);
    }
#line 396 "chapters/10-compress.nw"
    size_t lo = chunk_start(count, n, r), hi = chunk_start(count, n, r + 1);
    if (scale != 1.0f)
        c->dev->scale(hi - lo, scale, buf + lo);
    c->dev->encode(hi - lo, t, buf + lo, code + lo * w);
    if (ring_all_gather(c, code, count, w, err))
        return -1;
    c->dev->decode(count, t, code, buf, false);
    return 0;
#line 441 "chapters/10-compress.nw"
}
