#line 1736 "chapters/01-mlp.nw"
/**
 * @file device.c
 * @brief Choosing the device a user asked for; loading the CUDA backend when it is asked for.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "util.h"

#line 1801 "chapters/01-mlp.nw"
const Device *device_cuda_open(int rank, char *why)
{
#ifndef HAVE_CUDA
    (void)rank;
    snprintf(why, ERR_LEN, "this build has no CUDA backend (nvcc was not found, or NO_CUDA=1)");
    return NULL;
#else
    if (!dlopen(DEVICE_CUDA_DRIVER, RTLD_NOW | RTLD_GLOBAL)) {
        snprintf(why, ERR_LEN, "no CUDA driver on this machine (%.400s)", dlerror());
        return NULL;
    }
    void *backend = dlopen(DEVICE_CUDA_BACKEND, RTLD_NOW | RTLD_LOCAL);
    if (!backend) {
        snprintf(why, ERR_LEN, "the CUDA backend could not be loaded (%.400s)", dlerror());
        return NULL;
    }
    DeviceOpenFn open_backend;
    *(void **)&open_backend = dlsym(backend, DEVICE_CUDA_ENTRY);
    if (!open_backend) {
        snprintf(why, ERR_LEN, "%s has no %s", DEVICE_CUDA_BACKEND, DEVICE_CUDA_ENTRY);
        return NULL;
    }
    return open_backend(rank, why);
#endif
}

#line 1749 "chapters/01-mlp.nw"
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
