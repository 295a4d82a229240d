/* CUDA's CPU twin, for the tests: a device backend built as a shared library of its own
 * (build/tests/libdps_twin.so) and opened as the CUDA backend is, through
 * device_backend_open(), so that the process is marked as holding a GPU (chapter 1,
 * "Opening once, closing once, and the rule of fork"). What it hands out is the CPU device
 * under another description, and its close is the CPU's, counted.
 *
 * DPS_TEST_DEVICE=twin makes it the tests' device under test: then every test that opens
 * the device in its own process and forks ranks afterwards is refused by the launcher, on
 * the CPU, exactly as it fails on a GPU.
 *
 * It also has the CUDA device's pinned upload (chapter 1, "Pinned memory for the step's
 * upload"), checked: host_alloc() counts what it hands out, and the close fails on any not
 * freed; upload_async() copies at once, as the CPU does, but remembers a checksum of its
 * source, which must be unchanged at the calling thread's next sync() or download(), as a
 * copy still queued on a GPU needs. A caller that changes it sooner stops the process. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "device.h"
#include "util.h"

static Device twin;
static int closes; /* how many times the last close reached the backend */

static long pinned;                  /* buffers from host_alloc() not yet freed */
static __thread const void *pending; /* the source of the last upload_async(), until a sync */
static __thread size_t pending_bytes;
static __thread uint64_t pending_sum;

static uint64_t checksum(const void *p, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

/* The wait that upload_async() asks for: its source must not have changed before it. */
static void settle(void)
{
    if (pending && checksum(pending, pending_bytes) != pending_sum)
        fatal("twin: the source of upload_async() changed before the next sync()");
    pending = NULL;
}

static void *twin_host_alloc(size_t bytes)
{
    pinned++;
    return xcalloc(bytes ? bytes : 1, 1);
}

static void twin_host_release(void *p)
{
    if (p)
        pinned--;
    free(p);
}

static void twin_upload_async(void *dst, const void *src, size_t bytes)
{
    settle();
    device_cpu()->upload(dst, src, bytes);
    pending = src, pending_bytes = bytes, pending_sum = checksum(src, bytes);
}

static void twin_sync(void)
{
    settle();
    device_cpu()->sync();
}

static void twin_download(void *dst, const void *src, size_t bytes)
{
    settle();
    device_cpu()->download(dst, src, bytes);
}

static int twin_close(char *err)
{
    closes++;
    if (pinned != 0) {
        long held = pinned;
        pinned = 0;
        device_cpu()->close(err);
        return error_set(err, "twin: %ld pinned buffer(s) never freed", held);
    }
    return device_cpu()->close(err);
}

/* The entry point, as DEVICE_CUDA_ENTRY is the CUDA backend's. */
const Device *dps_twin_backend_open(int rank, char *why)
{
    (void)why;
    twin = *device_cpu();
    twin.close = twin_close;
    twin.host_alloc = twin_host_alloc, twin.host_release = twin_host_release;
    twin.upload_async = twin_upload_async, twin.sync = twin_sync, twin.download = twin_download;
    snprintf(twin.description, sizeof twin.description, "cpu, opened as CUDA's twin (rank %d)",
             rank);
    return &twin;
}

/* How many times closing reached the backend: once per open that was the last to close. */
int dps_twin_closes(void) { return closes; }
