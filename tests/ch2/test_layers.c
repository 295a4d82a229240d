/* The layer check (tests/check_layers.sh, Table 2.1): the tangled code passes it, and it
 * fails, naming the file and both layers, on an include that points up, and on a file that
 * is in no layer's folder. The planted files live in a temporary directory of the test's
 * own, laid out as tangled/ is: one folder per layer. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static char root[64];

static void plant(const char *name, const char *text)
{
    char path[512], dir[600];
    snprintf(path, sizeof path, "%s/%s", root, name);
    snprintf(dir, sizeof dir, "mkdir -p $(dirname %s)", path);
    cr_assert(system(dir) == 0, "cannot make the folder of %s", path);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static void check(Run *r)
{
    char *argv[] = {"/bin/bash", "tests/check_layers.sh", "tests/layers.txt", root, NULL};
    run_program(argv, r);
}

Test(layers, the_tangled_code_points_down_only)
{
    static Run r;
    char *argv[] = {"/bin/bash", "tests/check_layers.sh", NULL};
    run_program(argv, &r);
    cr_assert(r.status == 0 && strstr(r.out, "point down or across"), "exit %d: %s%s",
              r.status, r.out, r.err);
}

Test(layers, an_upward_include_is_refused_by_name)
{
    static Run r;
    char dir[] = "/tmp/dps-layers-XXXXXX";
    cr_assert(mkdtemp(dir), "mkdtemp failed");
    snprintf(root, sizeof root, "%s/tangled", dir);
    plant("run/options.h", "#include \"model.h\"\n#include \"launch.h\"\n");
    plant("model/model.h", "#include \"device.h\"\n");
    plant("device/device.h", "#include <stddef.h>\n");
    plant("launch/launch.h", "");
    check(&r);
    cr_assert(r.status == 0, "downward includes refused: %s", r.err);
    plant("model/model.h", "#include \"device.h\"\n#include \"options.h\"\n");
    check(&r);
    cr_assert(r.status == 1 && count_lines(r.err) == 1, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "model.h (model) includes options.h (run), a layer above its own"),
              "the message does not name the file and the layers: %s", r.err);
    plant("model/model.h", "#include \"device.h\"\n");
    plant("stray.c", "#include \"util.h\"\n");
    check(&r);
    cr_assert(r.status == 1 && strstr(r.err, "stray.c is in no layer"), "exit %d: %s",
              r.status, r.err);
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    cr_assert(system(rm) == 0);
}
