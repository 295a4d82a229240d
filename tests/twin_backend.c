/* CUDA's CPU twin, for the tests: a device backend built as a shared library of its own
 * (build/tests/libdps_twin.so) and opened as the CUDA backend is, through
 * device_backend_open(), so that the process is marked as holding a GPU (chapter 1,
 * "Opening once, closing once, and the rule of fork"). What it hands out is the CPU device
 * under another description, and its close is the CPU's, counted.
 *
 * DPS_TEST_DEVICE=twin makes it the tests' device under test: then every test that opens
 * the device in its own process and forks ranks afterwards is refused by the launcher, on
 * the CPU, exactly as it fails on a GPU. */
#include <stdio.h>

#include "device.h"
#include "util.h"

static Device twin;
static int closes; /* how many times the last close reached the backend */

static int twin_close(char *err)
{
    closes++;
    return device_cpu()->close(err);
}

/* The entry point, as DEVICE_CUDA_ENTRY is the CUDA backend's. */
const Device *dps_twin_backend_open(int rank, char *why)
{
    (void)why;
    twin = *device_cpu();
    twin.close = twin_close;
    snprintf(twin.description, sizeof twin.description, "cpu, opened as CUDA's twin (rank %d)",
             rank);
    return &twin;
}

/* How many times closing reached the backend: once per open that was the last to close. */
int dps_twin_closes(void) { return closes; }
