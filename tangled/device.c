#line 1556 "chapters/01-mlp.nw"
/**
 * @file device.c
 * @brief Choosing the device a user asked for.
 */
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "util.h"

#ifndef HAVE_CUDA
const Device *device_cuda_open(int rank, char *why)
{
    (void)rank;
    snprintf(why, ERR_LEN, "this build has no CUDA backend (nvcc was not found, or NO_CUDA=1)");
    return NULL;
}
#endif

const Device *device_open(const char *request, int rank, char *note, char *err)
{
    char why[ERR_LEN];
    if (strcmp(request, "cpu") == 0) {
        snprintf(note, ERR_LEN, "cpu (as asked)");
        return device_cpu();
    }
    const Device *dev = device_cuda_open(rank, why);
    if (dev) {
        snprintf(note, ERR_LEN, "cuda (%s)", strcmp(request,
                 "auto") == 0 ? "auto: a GPU answered" : "as asked");
        return dev;
    }
    if (strcmp(request, "cuda") == 0) {
        error_set(err, "--device cuda: %s", why);
        return NULL;
    }
    snprintf(note, ERR_LEN, "cpu (auto: %.400s)", why);
    return device_cpu();
}
