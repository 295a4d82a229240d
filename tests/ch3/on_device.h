/* The harness of the tests of exercises 3.1 and 3.3 (ps_weighted_mean, ps_async_push),
 * public and hidden: host buffers uploaded to the device under test, the exercise run
 * there, the result downloaded. */
#ifndef DPS_TEST_ON_DEVICE_H
#define DPS_TEST_ON_DEVICE_H

#include "ch3.h"
#include "helpers.h"

/* One push of host gradient g to host weights w at *version; w is updated in place. */
static inline int push(float *w, long *version, const float *g, size_t n, long gv,
                       int bound, float lr, char *err)
{
    const Device *dev = test_device();
    float *dw = dev->alloc(n * 4 + 4), *dg = dev->alloc(n * 4 + 4);
    dev->upload(dw, w, n * 4);
    dev->upload(dg, g, n * 4);
    int rc = ps_async_push(dev, dw, version, dg, n, gv, bound, lr, err);
    dev->download(w, dw, n * 4);
    dev->release(dw);
    dev->release(dg);
    return rc;
}

/* Upload the workers' gradients (g: worker after worker, n floats each) and out's first
 * contents; run the exercise; download out. */
static inline int weighted_mean(int workers, const float *g, const int *counts, size_t n,
                                float *out, char *err)
{
    const Device *dev = test_device();
    float *dg[8], *dout = dev->alloc(n * 4 + 4);
    for (int w = 0; w < workers; w++) {
        dg[w] = dev->alloc(n * 4 + 4);
        dev->upload(dg[w], g + (size_t)w * n, n * 4);
    }
    dev->upload(dout, out, n * 4);
    int rc = ps_weighted_mean(dev, workers, dg, counts, n, dout, err);
    dev->download(out, dout, n * 4);
    for (int w = 0; w < workers; w++)
        dev->release(dg[w]);
    dev->release(dout);
    return rc;
}

#endif
