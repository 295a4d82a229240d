/* Appendix B: the fuzzers' findings, kept. Every input in tests/fuzz/regressions/ (once a
 * crash or a broken property, since fixed) and every seed in tests/fuzz/seeds/ goes through
 * its fuzz target again, with the target's properties checked (a violation aborts this
 * test); the seeds, which are well formed, must also be accepted. */
#include <dirent.h>
#include <errno.h>

#include "fuzz/targets.h"
#include "helpers.h"

/* Feed every file of tests/fuzz/@p kind/@p target to @p fn; returns how many. */
static int replay(const char *kind, const char *target, int (*fn)(const uint8_t *, size_t))
{
    char dir[128];
    snprintf(dir, sizeof dir, "tests/fuzz/%s/%s", kind, target);
    DIR *d = opendir(dir);
    cr_assert(d, "%s: %s", dir, strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert(f, "%s", path);
        static uint8_t buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        fn(buf, len);
        n++;
    }
    closedir(d);
    return n;
}

Test(failure_fuzz, kept_inputs_and_seeds_replay_cleanly)
{
    const char *targets[] = {"checkpoint", "idx", "options"};
    int (*fns[])(const uint8_t *, size_t) = {fuzz_checkpoint, fuzz_idx, fuzz_options};
    int kept = 0, seeds = 0;
    for (int t = 0; t < 3; t++) {
        kept += replay("regressions", targets[t], fns[t]);
        seeds += replay("seeds", targets[t], fns[t]);
    }
    cr_assert(kept >= 1 && seeds >= 6, "%d kept inputs, %d seeds", kept, seeds);
    cr_log_info("fuzz: %d kept inputs and %d seeds replayed", kept, seeds);
}

static size_t read_all(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

Test(failure_fuzz, the_seeds_are_good_and_the_finding_is_refused)
{
    uint8_t buf[4096];
    char err[ERR_LEN];
    Checkpoint ck;
    size_t n = read_all("tests/fuzz/seeds/checkpoint/small-3-2-2", buf, sizeof buf);
    cr_assert(checkpoint_parse(buf, n, "seed", &ck, err) == 0, "%s", err);
    cr_assert(ck.n_layers == 2 && ck.n_params == 3 * 2 + 2 + 2 * 2 + 2 && ck.epoch == 2);
    checkpoint_free(&ck);
    /* the fuzzer's first find: a non-zero reserved field was accepted, so two different
     * files read as the same checkpoint */
    n = read_all("tests/fuzz/regressions/checkpoint/reserved-not-zero", buf, sizeof buf);
    cr_assert(checkpoint_parse(buf, n, "found", &ck, err) == -1 && strstr(err, "reserved"),
              "accepted, or refused for another reason: %s", err);
    Dataset d;
    memset(&d, 0, sizeof d);
    n = read_all("tests/fuzz/seeds/idx/images-2x2x2", buf, sizeof buf);
    cr_assert(idx_parse_images(buf, n, "seed", &d, err) == 0, "%s", err);
    cr_assert(d.n == 2 && d.features == 4 && d.x[3] == 1.0f && d.x[1] == 64 / 255.0f);
    data_free(&d);
}
