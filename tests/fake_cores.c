/* A machine with another number of cores, for the variant matrix (scripts/matrix.sh):
 * LD_PRELOAD this library and set DPS_FAKE_CORES=N, and every program, test and library that
 * asks how many cores it may use (sched_getaffinity, sysconf, get_nprocs) hears N: the
 * ranks' share of the BLAS threads, the choice between spinning and yielding, the binding
 * to cores. It stands in for a machine with more cores than this one has; a real cpuset
 * (taskset -c 0) is used for fewer. Binding a rank to a core the machine lacks fails with
 * EINVAL, which the book ignores (chapter 8: binding is a hint), so the ranks still run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static int fake(void)
{
    const char *s = getenv("DPS_FAKE_CORES");
    int n = s ? atoi(s) : 0;
    return n > 0 && n <= CPU_SETSIZE ? n : 0;
}

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    int n = fake();
    if (!n || (pid != 0 && pid != getpid())) { /* another process's mask is the kernel's */
        int (*real)(pid_t, size_t, cpu_set_t *) =
            (int (*)(pid_t, size_t, cpu_set_t *))dlsym(RTLD_NEXT, "sched_getaffinity");
        return real(pid, size, set);
    }
    CPU_ZERO_S(size, set);
    for (int i = 0; i < n && (size_t)i < 8 * size; i++)
        CPU_SET_S(i, size, set);
    return 0;
}

long sysconf(int name)
{
    int n = fake();
    if (n && (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF))
        return n;
    long (*real)(int) = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
    return real(name);
}

int get_nprocs(void)
{
    int n = fake();
    return n ? n : ((int (*)(void))dlsym(RTLD_NEXT, "get_nprocs"))();
}

int get_nprocs_conf(void)
{
    int n = fake();
    return n ? n : ((int (*)(void))dlsym(RTLD_NEXT, "get_nprocs_conf"))();
}
