/**
 * @file checkpoint.c
 * @brief Writing, reading and checking checkpoints.
 */
#line 192 "chapters/A2-failure.nw"
#include "checkpoint.h"

#line 212 "chapters/A2-failure.nw"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#line 196 "chapters/A2-failure.nw"
#include "report.h"
#include "util.h"

#line 235 "chapters/A2-failure.nw"
uint32_t crc32_update(uint32_t crc, const void *data, size_t n)
{
    static uint32_t table[256];
    static int ready; /* filled on first use; the same values if two threads race */
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#line 278 "chapters/A2-failure.nw"
static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

#line 294 "chapters/A2-failure.nw"
static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

#line 315 "chapters/A2-failure.nw"
static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#line 334 "chapters/A2-failure.nw"
size_t checkpoint_bytes(size_t n_params)
{
    return CKPT_HEADER + 4 * n_params + 4;
}

#line 345 "chapters/A2-failure.nw"
void checkpoint_encode(const Checkpoint *ck, unsigned char *buf)
{
    memset(buf, 0, CKPT_HEADER);
    memcpy(buf, CKPT_MAGIC, 8);
    put32(buf + 8, CKPT_VERSION);
    put32(buf + 12, (uint32_t)ck->n_layers);
    for (int l = 0; l <= ck->n_layers && l <= MAX_LAYERS; l++)
        put32(buf + 16 + 4 * l, (uint32_t)ck->width[l]);
    put32(buf + 56, (uint32_t)ck->epoch);
    put32(buf + 60, (uint32_t)ck->epochs);
    put64(buf + 64, ck->seed);
    put64(buf + 72, ck->global_batch);
    put64(buf + 80, ck->n_train);
    put32(buf + 88, float_bits(ck->lr));
    for (int i = 0; i < 4; i++)
        put64(buf + 96 + 8 * i, ck->rng.s[i]);
    put64(buf + 128, ck->n_params);
    for (size_t i = 0; i < ck->n_params; i++)
        put32(buf + CKPT_HEADER + 4 * i, float_bits(ck->params[i]));
    size_t body = CKPT_HEADER + 4 * ck->n_params;
    put32(buf + body, crc32_update(0, buf, body));
}
#line 417 "chapters/A2-failure.nw"
/** Write all of @p buf to @p fd, going on after short writes and interruptions. */
static int write_all(int fd, const unsigned char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

#line 437 "chapters/A2-failure.nw"
/** The directory part of @p path ("." when it has none) into @p dir of PATH_MAX bytes. */
static void dir_of(const char *path, char *dir)
{
    snprintf(dir, PATH_MAX, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, PATH_MAX, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
}

#line 455 "chapters/A2-failure.nw"
/** fsync the directory holding @p path, so that a rename in it is on the disk. */
static int sync_dir(const char *path)
{
    char dir[PATH_MAX];
    dir_of(path, dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc < 0 && errno != EINVAL ? -1 : 0; /* some file systems cannot sync a directory */
}

#line 473 "chapters/A2-failure.nw"
int checkpoint_writable(const char *path, char *err)
{
    struct stat st;
    char dir[PATH_MAX];
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return error_set(err, "%s is a directory", path);
    dir_of(path, dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return error_set(err, "%s cannot be written: %s is not a directory", path, dir);
    if (access(dir, W_OK) != 0)
        return error_set(err, "%s cannot be written: %s: %s", path, dir, strerror(errno));
    return 0;
}

#line 493 "chapters/A2-failure.nw"
int checkpoint_write(const char *path, const Checkpoint *ck, char *err)
{
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return error_set(err, "checkpoint %s: the path is too long", path);
    size_t n = checkpoint_bytes(ck->n_params);
    unsigned char *buf = xcalloc(n, 1);
    checkpoint_encode(ck, buf);
#line 518 "chapters/A2-failure.nw"
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &hold, &old);
#line 532 "chapters/A2-failure.nw"
    const char *step = NULL, *what = tmp;
    int e = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        step = "create", e = errno;
    else if (write_all(fd, buf, n) != 0)
        step = "write", e = errno;
    else if (fsync(fd) != 0)
        step = "fsync", e = errno;
    if (fd >= 0 && close(fd) != 0 && !step)
        step = "close", e = errno;
    if (!step && rename(tmp, path) != 0)
        step = "rename", what = path, e = errno;
    if (step)
        unlink(tmp); /* whatever failed, the old checkpoint was not touched */
    else if (sync_dir(path) != 0)
        step = "fsync the directory of", what = path, e = errno;
#line 503 "chapters/A2-failure.nw"
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(buf);
    if (step)
        return error_set(err,
                         "checkpoint: cannot %s %s: %s (the last checkpoint, if any, is "
                         "intact)",
                         step, what, strerror(e));
#line 509 "chapters/A2-failure.nw"
    return 0;
}
#line 579 "chapters/A2-failure.nw"
int checkpoint_parse(const unsigned char *buf, size_t len, const char *name, Checkpoint *ck,
                     char *err)
{
#line 583 "chapters/A2-failure.nw"
    memset(ck, 0, sizeof *ck);
#line 602 "chapters/A2-failure.nw"
    if (len < 8 || memcmp(buf, CKPT_MAGIC, 8) != 0)
        return error_set(err, "%s is not a checkpoint of this book (no DPSCKPT magic)", name);
    if (len < 12)
        return error_set(err, "%s is truncated: %zu bytes, the header has %d", name, len,
                         CKPT_HEADER);
    uint32_t version = get32(buf + 8);
    if (version != CKPT_VERSION)
        return error_set(err, "%s has format version %u; this program reads version %d", name,
                         version, CKPT_VERSION);
#line 618 "chapters/A2-failure.nw"
    if (len < CKPT_HEADER + 4)
        return error_set(err, "%s is truncated: %zu bytes, the header has %d", name, len,
                         CKPT_HEADER);
    uint64_t n = get64(buf + 128), room = (len - CKPT_HEADER - 4) / 4;
    if (n > room)
        return error_set(err,
                         "%s is truncated: %zu bytes, but its header promises %llu "
                         "parameters",
                         name, len, (unsigned long long)n);
#line 625 "chapters/A2-failure.nw"
    if (len != checkpoint_bytes((size_t)n))
        return error_set(err, "%s has %zu bytes, %zu more than its %llu parameters need", name,
                         len, len - checkpoint_bytes((size_t)n), (unsigned long long)n);
#line 634 "chapters/A2-failure.nw"
    size_t body = len - 4;
    uint32_t stored = get32(buf + body), computed = crc32_update(0, buf, body);
    if (stored != computed)
        return error_set(err, "%s is damaged: its CRC-32 is %08x but its bytes give %08x", name,
                         stored, computed);
#line 587 "chapters/A2-failure.nw"
    Checkpoint c = {0};
#line 681 "chapters/A2-failure.nw"
    uint32_t L = get32(buf + 12);
    if (L < 1 || L > MAX_LAYERS)
        return error_set(err, "%s is malformed: %u layers (1 to %d are possible)", name, L,
                         MAX_LAYERS);
    uint64_t expect = 0;
    for (uint32_t l = 0; l <= MAX_LAYERS; l++) {
        uint32_t w = get32(buf + 16 + 4 * l);
        if ((l <= L && (w < 1 || w > (1u << 24))) || (l > L && w != 0))
            return error_set(err, "%s is malformed: width %u of the model is %u", name, l, w);
        c.width[l] = (int)w;
        if (l >= 1 && l <= L)
            expect += (uint64_t)c.width[l - 1] * w + w;
    }
    if (expect != n)
        return error_set(err,
                         "%s is malformed: a model of these widths has %llu parameters, the "
                         "header says %llu",
                         name, (unsigned long long)expect, (unsigned long long)n);
#line 707 "chapters/A2-failure.nw"
    if (get32(buf + 92) != 0) /* found by the fuzzer: else two files would read the same */
        return error_set(err, "%s is malformed: its reserved bytes 92-95 are not zero", name);
    uint32_t epoch = get32(buf + 56), epochs = get32(buf + 60);
    c.n_layers = (int)L;
    c.seed = get64(buf + 64);
    c.global_batch = get64(buf + 72);
    c.n_train = get64(buf + 80);
    c.lr = bits_float(get32(buf + 88));
    for (int i = 0; i < 4; i++)
        c.rng.s[i] = get64(buf + 96 + 8 * i);
    c.n_params = (size_t)n;
    if (epoch < 1 || epoch > epochs || epochs > 1000000 || c.global_batch < 1 ||
        c.global_batch > c.n_train || !isfinite(c.lr) || c.lr <= 0 ||
        (c.rng.s[0] | c.rng.s[1] | c.rng.s[2] | c.rng.s[3]) == 0)
        return error_set(err,
                         "%s is malformed: epoch %u of %u, global batch %llu of %llu "
                         "samples, lr %g",
                         name, epoch, epochs, (unsigned long long)c.global_batch,
                         (unsigned long long)c.n_train, (double)c.lr);
#line 725 "chapters/A2-failure.nw"
    c.epoch = (int)epoch;
    c.epochs = (int)epochs;
#line 589 "chapters/A2-failure.nw"
    c.params = xcalloc(n, sizeof(float));
    for (size_t i = 0; i < n; i++)
        c.params[i] = bits_float(get32(buf + CKPT_HEADER + 4 * i));
    *ck = c;
    return 0;
}

#line 647 "chapters/A2-failure.nw"
int checkpoint_load(const char *path, Checkpoint *ck, char *err)
{
    memset(ck, 0, sizeof *ck);
    unsigned char *buf;
    size_t len;
    if (read_file(path, &buf, &len, err))
        return -1;
    int rc = checkpoint_parse(buf, len, path, ck, err);
    free(buf);
    return rc;
}

void checkpoint_free(Checkpoint *ck)
{
    free(ck->params);
    memset(ck, 0, sizeof *ck);
}
#line 757 "chapters/A2-failure.nw"
int checkpoint_match(const Checkpoint *ck, const Checkpoint *want, const char *name, char *err)
{
#line 776 "chapters/A2-failure.nw"
    char have[128], need[128];
    bool same = ck->n_layers == want->n_layers;
    for (int l = 0; same && l <= ck->n_layers; l++)
        same = ck->width[l] == want->width[l];
    if (!same) {
        widths_describe(ck->width, ck->n_layers, have, sizeof have);
        widths_describe(want->width, want->n_layers, need, sizeof need);
        return error_set(err,
                         "--resume: %s holds a %s model, this run builds %s (give the "
                         "--hidden it was written with)",
                         name, have, need);
#line 785 "chapters/A2-failure.nw"
    }
#line 793 "chapters/A2-failure.nw"
    if (ck->seed != want->seed)
        return error_set(err,
                         "--resume: %s was written with --seed %llu, this run has --seed "
                         "%llu",
                         name, (unsigned long long)ck->seed, (unsigned long long)want->seed);
    if (ck->n_train != want->n_train)
        return error_set(err,
                         "--resume: %s was written for %llu training samples, this run "
                         "has %llu (--data, --train_size)",
                         name, (unsigned long long)ck->n_train,
                         (unsigned long long)want->n_train);
#line 802 "chapters/A2-failure.nw"
    if (ck->global_batch != want->global_batch)
        return error_set(err,
                         "--resume: %s was written with a global batch of %llu samples, "
                         "this run's is %llu (--batch_size x ranks)",
                         name, (unsigned long long)ck->global_batch,
                         (unsigned long long)want->global_batch);
#line 807 "chapters/A2-failure.nw"
    if (float_bits(ck->lr) != float_bits(want->lr))
        return error_set(err, "--resume: %s was written with --lr %g, this run has --lr %g",
                         name, (double)ck->lr, (double)want->lr);
#line 762 "chapters/A2-failure.nw"
    if (ck->epoch >= want->epochs)
        return error_set(err,
                         "--resume: %s already holds epoch %d, and this run asks for "
                         "--epochs %d: nothing to resume (raise --epochs)",
                         name, ck->epoch, want->epochs);
#line 768 "chapters/A2-failure.nw"
    return 0;
}

#line 816 "chapters/A2-failure.nw"
int checkpoint_restore(const Checkpoint *ck, Model *m, char *err)
{
    if (!ck->params || ck->n_params != m->n_params)
        return error_set(err, "checkpoint: %zu parameters for a model of %zu", ck->n_params,
                         m->n_params);
#line 822 "chapters/A2-failure.nw"
    m->dev->upload(m->params, ck->params, m->n_params * sizeof(float));
    m->dev->sync();
    return 0;
}

#line 831 "chapters/A2-failure.nw"
void checkpoint_describe(const Checkpoint *ck, char *buf, size_t len)
{
    char shape[128], n1[32], n2[32];
    widths_describe(ck->width, ck->n_layers, shape, sizeof shape);
    snprintf(buf, len,
             "model %s (%s parameters), epoch %d of %d, seed %llu, global batch "
             "%llu, %s training samples, lr %g",
             shape, format_count(n1, (long long)ck->n_params), ck->epoch, ck->epochs,
             (unsigned long long)ck->seed, (unsigned long long)ck->global_batch,
             format_count(n2, (long long)ck->n_train), (double)ck->lr);
}
