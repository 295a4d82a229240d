/* Attack 3 (make autograder-check): an empty relu_bias_backward, and a constructor that
 * writes a file into the autograder's results directory (../results from the source
 * directory, where the tests run), where Gradescope reads results.json. Without the jail it
 * is written; in the jail it runs as nobody, and the results directory is root's. */
#include <stdio.h>

#include "ch1.h"

void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols)
{
    (void)dy, (void)y, (void)dbias, (void)rows, (void)cols;
}

__attribute__((constructor)) static void attack(void)
{
    FILE *f = fopen("../results/forged.json", "w");
    if (f) {
        fprintf(f, "{\"score\": 460}\n");
        fclose(f);
    }
}
