/* Exercise 1.2: a gradient checker (2 stars, 20 points). Read the end of chapter 1.
 * Replace the body below; `make test` runs your tests once this file has changed. */
#include <math.h>
#include <stdint.h>

#include "ch1.h"

double gradient_check(Model *m, int B, float eps, size_t *worst)
{
    /* TODO: backpropagate, then perturb every parameter by +eps and -eps. */
    (void)m, (void)B, (void)eps;
    *worst = SIZE_MAX;
    return NAN;
}
