/**
 * @file ckpt_main.c
 * @brief The program ckpt: check checkpoints and say what they hold (appendix B).
 */
#line 1584 "chapters/A3-programs.nw"
#include <stdio.h>
#include <string.h>

#include "checkpoint.h"
#include "util.h"

#line 1607 "chapters/A3-programs.nw"
/** Check every file named on the command line. */
int main(int argc, char **argv)
{
    set_program_name(argv[0]);
#line 1640 "chapters/A3-programs.nw"
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f,
                "usage: %s FILE...\nCheck checkpoints written by --checkpoint (magic, "
                "version, length, CRC-32, fields) and print what each holds.\nExit status: 0 "
                "when every file is good, 2 otherwise.\n",
                program_name());
#line 1645 "chapters/A3-programs.nw"
        return argc < 2 ? EXIT_USAGE : 0;
    }
#line 1612 "chapters/A3-programs.nw"
    int status = 0;
    for (int i = 1; i < argc; i++) {
        char err[ERR_LEN], what[256];
        Checkpoint ck;
        if (checkpoint_load(argv[i], &ck, err)) {
            fprintf(stderr, "%s: %s\n", program_name(), err);
            status = EXIT_USAGE;
            continue;
        }
        checkpoint_describe(&ck, what, sizeof what);
        printf("%s: good: %s\n", argv[i], what);
        checkpoint_free(&ck);
    }
    return status;
}
