/**
 * @file shm_world.c
 * @brief The shared-memory transport: the world, laid out and mapped before the fork,
 *        unmapped after the ranks (chapters 2, 8).
 */
#line 2595 "chapters/02-shm.nw"
#include "shm_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

#line 1419 "chapters/02-shm.nw"
ChannelCtl *shm_channel(ShmWorld *w, int src, int dst)
{
    return (ChannelCtl *)((char *)w + w->ctl_at) + (size_t)src * w->size + dst;
}

unsigned char *shm_host_ring(ShmWorld *w, int src, int dst)
{
    return (unsigned char *)w + w->ring_at + ((size_t)src * w->size + dst) * w->host_bytes;
}

unsigned char *shm_ipc_slot(ShmWorld *w, int src, int dst)
{
    return (unsigned char *)w + w->ipc_at + ((size_t)src * w->size + dst) * DEVICE_IPC_BYTES;
}

size_t shm_round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

#line 1385 "chapters/02-shm.nw"
ShmWorld *shm_world_create(int size, size_t channel_bytes, double timeout_s, char *err)
{
#line 1449 "chapters/02-shm.nw"
    if (channel_bytes == 0)
        channel_bytes = SHM_CHANNEL_BYTES;
    if (size < 1 || size > LAUNCH_MAX_RANKS) {
        error_set(err, "shm: %d ranks asked for; 1 to %d are possible", size, LAUNCH_MAX_RANKS);
#line 1454 "chapters/02-shm.nw"
        return NULL;
    }
    bool power_of_two = (channel_bytes & (channel_bytes - 1)) == 0;
    if (channel_bytes < 64 || channel_bytes > (1u << 31) || !power_of_two) {
        error_set(err, "shm: a channel of %zu bytes: it must be a power of two, 64 B to 2 GiB",
                  channel_bytes);
#line 1461 "chapters/02-shm.nw"
        return NULL;
    }
#line 1474 "chapters/02-shm.nw"
    size_t pairs = (size_t)size * size;
    size_t ctl_at = shm_round_up(sizeof(ShmWorld), LINE);
    size_t ipc_at = shm_round_up(ctl_at + pairs * sizeof(ChannelCtl), LINE);
    size_t ring_at = shm_round_up(ipc_at + pairs * DEVICE_IPC_BYTES, 4096);
    size_t bytes = ring_at + pairs * channel_bytes;
    ShmWorld *w = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w == MAP_FAILED) {
        error_set(err, "shm: cannot map %zu MiB of shared memory: %s", bytes >> 20,
                  strerror(errno));
        return NULL;
    }
#line 1389 "chapters/02-shm.nw"
    w->size = size;
    w->host_bytes = channel_bytes;
    w->dev_bytes = SHM_DEVICE_CHANNEL_BYTES;
    w->timeout = timeout_s;
    w->map_bytes = bytes;
    w->ctl_at = ctl_at;
    w->ipc_at = ipc_at;
    w->ring_at = ring_at;
#line 120 "chapters/08-direct.nw"
    size_t windows = (size_t)size * SHM_WINDOW_BYTES;
    int fd = memfd_create("dps-windows", MFD_CLOEXEC);
    void *win =
        fd >= 0 && ftruncate(fd, (off_t)windows) == 0
            ? mmap(NULL, windows, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)
            : MAP_FAILED;
#line 125 "chapters/08-direct.nw"
    w->window = win == MAP_FAILED ? NULL : win;
    w->window_bytes = win == MAP_FAILED ? 0 : SHM_WINDOW_BYTES;
    w->window_fd = win == MAP_FAILED && fd >= 0 ? (close(fd), -1) : fd;
#line 1398 "chapters/02-shm.nw"
    return w; /* the mapping comes zeroed: every counter starts at 0 */
}

void shm_world_destroy(ShmWorld *w)
{
#line 131 "chapters/08-direct.nw"
    if (w && w->window)
        munmap(w->window, (size_t)w->size * w->window_bytes);
    if (w && w->window_fd >= 0)
        close(w->window_fd);
#line 1404 "chapters/02-shm.nw"
    if (w)
        munmap(w, w->map_bytes);
}
