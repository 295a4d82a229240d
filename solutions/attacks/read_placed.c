/* Attack (submission paths), with the layout make autograder-check gives it: a folder whose
 * name holds newlines, so that a grader reading the submission's paths line by line takes
 * "../source/tests/hidden/ch1/ex_sgd_nesterov.c" for a file of the submission and copies
 * that hidden test over exercises/ch1/sgd_nesterov.c, which everyone can read; and a
 * symbolic link named relu_bias_backward.c to another hidden test. This constructor then reads the
 * two exercise files and prints any test it finds there. The grader refuses both names. */
#include "common.h"

__attribute__((constructor)) static void attack(void)
{
    const char *files[] = {"exercises/ch1/sgd_nesterov.c", "exercises/ch1/relu_bias_backward.c"};
    char line[512];
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        while (f && fgets(line, sizeof line, f))
            if (strstr(line, "Test(")) {
                fprintf(stderr, "LEAKED-PLACE: %s", line);
                abort();
            }
        if (f)
            fclose(f);
    }
}
