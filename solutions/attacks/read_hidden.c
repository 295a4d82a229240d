/* Attack 2 (make autograder-check): an empty relu_bias_backward, and a constructor that
 * reads the hidden tests' source and shows its first line in the test's failure message,
 * which results.json carries back to the student. Without the jail it leaks; in the jail it
 * runs as nobody, and tests/hidden is the grader's alone. */
#include <stdio.h>
#include <stdlib.h>

#include "ch1.h"

void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols)
{
    (void)dy, (void)y, (void)dbias, (void)rows, (void)cols;
}

__attribute__((constructor)) static void attack(void)
{
    char line[256];
    FILE *f = fopen("tests/hidden/ch1/ex_relu_bias_backward.c", "r");
    if (!f || !fgets(line, sizeof line, f)) {
        fprintf(stderr, "attack: the hidden tests cannot be read\n");
        return;
    }
    fprintf(stderr, "LEAKED: %s", line);
    abort();
}
