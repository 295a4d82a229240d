/**
 * @file device.c
 * @brief Choosing the device a user asked for; loading the CUDA backend when it is asked for.
 */
#line 3630 "chapters/01-mlp.nw"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "util.h"

#line 3844 "chapters/01-mlp.nw"
/** What this process has opened and not yet closed. */
static struct {
    int cpu;            /**< device_open()s that gave the CPU */
    const Device *gpu;  /**< the backend's table while it is open */
    int gpu_opens;      /**< device_backend_open()s that gave it */
    const char *hazard; /**< what fork() would not carry: set by the first backend open */
} opened;
#line 3874 "chapters/01-mlp.nw"
const Device *device_backend_open(const char *name, const char *entry, const char *what,
                                  int rank, char *why)
{
    if (opened.gpu) {
        opened.gpu_opens++;
        return opened.gpu;
    }
    char err[ERR_LEN];
    DeviceOpenFn open_backend;
    *(void **)&open_backend = backend_entry(name, entry, err);
    if (!open_backend) {
        snprintf(why, ERR_LEN, "the %s backend could not be loaded (%.400s)", what, err);
        return NULL;
    }
    opened.hazard = what;
    if (!(opened.gpu = open_backend(rank, why)))
        return NULL;
    opened.gpu_opens = 1;
    return opened.gpu;
}

const char *device_fork_hazard(void)
{
    return opened.hazard;
}
#line 3729 "chapters/01-mlp.nw"
const Device *device_cuda_open(int rank, char *why)
{
#ifndef HAVE_CUDA
    (void)rank;
    snprintf(why, ERR_LEN, "this build has no CUDA backend (nvcc was not found, or NO_CUDA=1)");
#line 3735 "chapters/01-mlp.nw"
    return NULL;
#else
    if (!dlopen(DEVICE_CUDA_DRIVER, RTLD_NOW | RTLD_GLOBAL)) {
        snprintf(why, ERR_LEN, "no CUDA driver on this machine (%.400s)", dlerror());
        return NULL;
    }
    return device_backend_open(DEVICE_CUDA_BACKEND, DEVICE_CUDA_ENTRY, "CUDA", rank, why);
#endif
}
#line 3767 "chapters/01-mlp.nw"
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

#line 3661 "chapters/01-mlp.nw"
const Device *device_open(const char *request, int rank, char *note, char *err)
{
    char why[ERR_LEN];
    if (strcmp(request, "cpu") == 0) {
        snprintf(note, ERR_LEN, "cpu (as asked)");
        opened.cpu++;
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
    opened.cpu++;
    return device_cpu();
}
#line 3912 "chapters/01-mlp.nw"
int device_close(const Device *dev, char *err)
{
    if (dev && dev == opened.gpu && opened.gpu_opens > 0) {
        if (--opened.gpu_opens > 0)
            return 0;
        opened.gpu = NULL;
    } else if (dev && dev->kind == DEVICE_CPU && opened.cpu > 0) {
        if (--opened.cpu > 0)
            return 0;
    } else {
        return error_set(err, "device_close: %s is not open", dev ? dev->name : "NULL");
    }
    return dev->close ? dev->close(err) : 0;
}

int device_open_count(void)
{
    return opened.cpu + opened.gpu_opens;
}
#line 3950 "chapters/01-mlp.nw"
int gpu_count(void)
{
    if (opened.gpu)
        return opened.gpu->count > 255 ? 255 : opened.gpu->count;
    pid_t pid = fork();
    if (pid == 0) {
        char note[ERR_LEN], err[ERR_LEN];
        memset(&opened, 0, sizeof opened); /* nothing the parent opened is this child's */
        const Device *d = device_open("cuda", 0, note, err);
        int count = d ? (d->count > 255 ? 255 : d->count) : 0;
        if (d)
            device_close(d, err);
        _exit(count);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 0;
    return WEXITSTATUS(status);
}
#line 4015 "chapters/01-mlp.nw"
bool device_sharing(const Device *dev, int ranks, char *line, size_t len)
{
    line[0] = '\0';
    if (dev->kind == DEVICE_CPU || ranks <= dev->count)
        return false;
    snprintf(line, len, "%d ranks share %d GPU%s", ranks, dev->count,
             dev->count == 1 ? "" : "s");
    return true;
}

bool device_mps_running(char *pipe, size_t len)
{
    const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    snprintf(pipe, len, "%s/control", dir && *dir ? dir : "/tmp/nvidia-mps");
    struct stat st;
    return stat(pipe, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}
