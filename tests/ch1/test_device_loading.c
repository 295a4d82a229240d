/* Chapter 1, "Loading CUDA only when it is used": the programs do not load CUDA, cuBLAS or
 * NCCL until a run asks for a GPU, nor MPI until a run asks for --transport mpi (chapter 6),
 * and a build made with the CUDA toolkit still starts and trains on the CPU where those
 * libraries are missing. */
#include <errno.h>

#include "helpers.h"

/* The libraries that a run on the CPU, over shared memory, must never load. */
static const char *const gpu_libraries[] = {"libcudart.so", "libcublas.so", "libcublasLt.so",
                                            "libnccl.so",   "libdps_cuda.so", "libdps_nccl.so",
                                            "libmpi.so",    "libdps_mpi.so"};

/* Run @p cmd under sh with the dynamic loader's trace of the files it opens on stderr
 * (LD_DEBUG=files); fail when any GPU or MPI library appears in it. */
static void loads_no_gpu_or_mpi_library(const char *cmd)
{
    static Run r;
    char script[512];
    snprintf(script, sizeof script, "LD_DEBUG=files exec %s", cmd);
    run_program((char *[]){"/bin/sh", "-c", script, NULL}, &r);
    cr_assert(strstr(r.err, "file=libopenblas") || strstr(r.err, "file=libc.so"),
              "%s: the loader's trace is missing (LD_DEBUG unsupported?): %.300s", cmd, r.err);
    for (size_t i = 0; i < sizeof gpu_libraries / sizeof gpu_libraries[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "file=%s", gpu_libraries[i]);
        cr_expect(!strstr(r.err, key), "%s loaded %s", cmd, gpu_libraries[i]);
    }
}

Test(device_loading, help_refusals_and_cpu_runs_load_no_gpu_or_mpi_library)
{
    loads_no_gpu_or_mpi_library("./mlp --help");
    loads_no_gpu_or_mpi_library("./train --strategy nccl --n_gpus 0");
    loads_no_gpu_or_mpi_library("./ring --n_gpus 2 --device cpu --epochs 1 --train_size 512 --quiet");
    loads_no_gpu_or_mpi_library("./collectives --n_gpus 2 --device cpu -b 1K -e 4K -n 2 -w 1");
    /* refused for want of a GPU before NCCL is loaded */
    loads_no_gpu_or_mpi_library("./collectives --n_gpus 2 --device cpu --op nccl_all_reduce -b 1K "
                         "-e 1K");
    loads_no_gpu_or_mpi_library("./pingpong --help");
    loads_no_gpu_or_mpi_library("./train --transport mpi --epochs x");
}

/* A driver that answers "no device" (CUDA's stub libcuda), placed in a fresh directory as
 * libcuda.so.1; returns the directory, or NULL when this build or machine has none. */
static char *stub_driver_dir(char *dir, size_t cap)
{
#ifndef HAVE_CUDA
    (void)dir, (void)cap;
    return NULL;
#else
    const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char stub[512];
    snprintf(stub, sizeof stub, "%s/lib64/stubs/libcuda.so", home);
    if (access(stub, R_OK) != 0)
        return NULL;
    snprintf(dir, cap, "/tmp/dps-stub-XXXXXX");
    cr_assert(mkdtemp(dir), "mkdtemp failed");
    char link[600];
    snprintf(link, sizeof link, "%s/libcuda.so.1", dir);
    cr_assert(symlink(stub, link) == 0, "symlink %s: %s", link, strerror(errno));
    return dir;
#endif
}

static void remove_stub_dir(const char *dir)
{
    char link[600];
    snprintf(link, sizeof link, "%s/libcuda.so.1", dir);
    unlink(link);
    rmdir(dir);
}

/* With a driver library present, --device auto loads the backend and asks it for a GPU:
 * the banner carries the backend's own answer (the stub's "no device"). */
Test(device_loading, the_backend_is_loaded_when_a_driver_is_present)
{
    if (test_on_cuda())
        cr_skip_test("a real GPU is present");
    char dir[64];
    if (!stub_driver_dir(dir, sizeof dir))
        cr_skip_test("this build has no CUDA backend, or the toolkit has no stub driver");
    static Run r;
    char script[512];
    snprintf(script, sizeof script, "LD_LIBRARY_PATH=%s exec ./mlp --epochs 1 --train_size 256 "
             "--hidden 16", dir);
    run_program((char *[]){"/bin/sh", "-c", script, NULL}, &r);
    remove_stub_dir(dir);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "device   cpu (auto: no CUDA device answered (cudaGetDeviceCount:"),
              "the backend was not asked: %.400s", r.out);
    cr_assert(strstr(r.out, "epoch 1/1"), "%s", r.out);
}

/* The toolkit hidden: a private mount namespace lays an empty directory over every directory
 * that holds CUDA's, cuBLAS's or NCCL's libraries. The stub driver, copied out first, lets the
 * loader get as far as the backend, which then cannot load cuBLAS. Needs root (unshare). */
Test(device_loading, a_cuda_build_trains_on_the_cpu_where_cuda_is_missing)
{
    if (test_on_cuda())
        cr_skip_test("a real GPU is present");
    char dir[64];
    if (!stub_driver_dir(dir, sizeof dir))
        cr_skip_test("this build has no CUDA backend, or the toolkit has no stub driver");
    char stub[600];
    snprintf(stub, sizeof stub, "%s/libcuda.so.1", dir);
    char copy[1400];
    snprintf(copy, sizeof copy, "cp --remove-destination \"$(readlink -f %s)\" %s", stub, stub);
    cr_assert(system(copy) == 0, "%s failed", copy);
    static Run r;
    char script[2048];
    snprintf(script, sizeof script,
             "unshare -m --propagation private sh -c '"
             "for d in $(ldconfig -p | awk \"/lib(cudart|cublas|cublasLt|nccl)\\\\.so/ {print \\$NF}\""
             " | xargs -r -n1 dirname) /usr/local/cuda/lib64 \"${CUDA_HOME:-/usr/local/cuda}/lib64\"; do"
             "  [ -d \"$d\" ] && mount -t tmpfs none \"$(readlink -f \"$d\")\" || exit 77; done;"
             " ldd build/lib/libdps_cuda.so | grep -q \"libcublas.so.* => not found\" || exit 78;"
             " LD_LIBRARY_PATH=%s ./mlp --epochs 1 --train_size 256 --hidden 16 &&"
             " LD_LIBRARY_PATH=%s ./mlp --device cuda --train_size 256' 2>&1",
             dir, dir);
    run_program((char *[]){"/bin/sh", "-c", script, NULL}, &r);
    remove_stub_dir(dir);
    if (strstr(r.out, "unshare: ") || strstr(r.out, "mount: ") || r.status == 77)
        cr_skip_test("cannot make a private mount namespace here (not root?): %.200s", r.out);
    cr_assert(r.status != 78, "the libraries were not hidden: %s", r.out);
    cr_assert(strstr(r.out, "device   cpu (auto: the CUDA backend could not be loaded ("
                            "libcublas"),
              "the banner does not say why: %.600s", r.out);
    cr_assert(strstr(r.out, "epoch 1/1"), "it did not train: %.600s", r.out);
    cr_assert(strstr(r.out, "mlp: --device cuda: the CUDA backend could not be loaded ("),
              "--device cuda did not say why: %.600s", r.out);
    cr_assert(r.status == 1, "--device cuda: exit %d: %s", r.status, r.out);
}
