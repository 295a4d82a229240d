/* Exercise 5.2, reference solution. */
#include "ch5.h"

int rabenseifner_all_reduce(Comm *c, float *buf, size_t count, float *scratch, char *err)
{
    int n = c->size, r = c->rank;
    if (n & (n - 1))
        return error_set(err, "Rabenseifner's all-reduce needs a power of two ranks, not %d", n);
    size_t lo = 0, hi = count, los[32], his[32];
    int steps = 0;
    for (int mask = n >> 1; mask >= 1; mask >>= 1, steps++) {
        int partner = r ^ mask;
        size_t m = lo + (hi - lo) / 2;
        size_t klo = r & mask ? m : lo, khi = r & mask ? hi : m;
        size_t slo = r & mask ? lo : m, shi = r & mask ? m : hi;
        if (c->sendrecv(c, partner, buf + slo, (shi - slo) * sizeof(float), partner, scratch,
                        (khi - klo) * sizeof(float), err))
            return -1;
        c->dev->axpy(khi - klo, 1.0f, scratch, buf + klo);
        los[steps] = lo;
        his[steps] = hi;
        lo = klo;
        hi = khi;
    }
    for (int j = steps - 1; j >= 0; j--) {
        int mask = n >> (j + 1), partner = r ^ mask;
        size_t plo = los[j], phi = his[j];
        size_t olo = r & mask ? plo : hi, ohi = r & mask ? lo : phi;
        if (c->sendrecv(c, partner, buf + lo, (hi - lo) * sizeof(float), partner, buf + olo,
                        (ohi - olo) * sizeof(float), err))
            return -1;
        lo = plo;
        hi = phi;
    }
    return 0;
}
