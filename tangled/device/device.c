/**
 * @file device.c
 * @brief Choosing the device a user asked for; loading the CUDA backend when it is asked for.
 */
#line 2634 "chapters/01-mlp.nw"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "util.h"

#line 2717 "chapters/01-mlp.nw"
const Device *device_cuda_open(int rank, char *why)
{
#ifndef HAVE_CUDA
    (void)rank;
    snprintf(why, ERR_LEN, "this build has no CUDA backend (nvcc was not found, or NO_CUDA=1)");
#line 2723 "chapters/01-mlp.nw"
    return NULL;
#else
    if (!dlopen(DEVICE_CUDA_DRIVER, RTLD_NOW | RTLD_GLOBAL)) {
        snprintf(why, ERR_LEN, "no CUDA driver on this machine (%.400s)", dlerror());
        return NULL;
    }
    char err[ERR_LEN];
    DeviceOpenFn open_backend;
    *(void **)&open_backend = backend_entry(DEVICE_CUDA_BACKEND, DEVICE_CUDA_ENTRY, err);
    if (!open_backend) {
        snprintf(why, ERR_LEN, "the CUDA backend could not be loaded (%.400s)", err);
        return NULL;
    }
    return open_backend(rank, why);
#endif
}
#line 2764 "chapters/01-mlp.nw"
void *backend_entry(const char *name, const char *entry, char *why)
{
    const char *file = name;
#ifdef DPS_BACKEND_DIR
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", DPS_BACKEND_DIR, name);
    if (access(path, F_OK) == 0)
        file = path; /* there: what stops it loading is the news, not a search elsewhere */
#endif
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, ERR_LEN, "%.400s", dlerror());
        return NULL;
    }
    void *fn = dlsym(lib, entry);
    if (!fn) {
        snprintf(why, ERR_LEN, "%s has no %s", name, entry);
        dlclose(lib);
    }
    return fn;
}

#line 2656 "chapters/01-mlp.nw"
const Device *device_open(const char *request, int rank, char *note, char *err)
{
    char why[ERR_LEN];
    if (strcmp(request, "cpu") == 0) {
        snprintf(note, ERR_LEN, "cpu (as asked)");
        return device_cpu();
    }
    const Device *dev = device_cuda_open(rank, why);
    if (dev) {
        snprintf(note, ERR_LEN, "cuda (%s)",
                 strcmp(request, "auto") == 0 ? "auto: a GPU answered" : "as asked");
        return dev;
    }
    if (strcmp(request, "cuda") == 0) {
        error_set(err, "--device cuda: %s", why);
        return NULL;
    }
    snprintf(note, ERR_LEN, "cpu (auto: %.400s)", why);
    return device_cpu();
}
