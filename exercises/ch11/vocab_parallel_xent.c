/* Exercise 11.3: Cross-entropy over split classes (2 stars, 20 points). Read the end of
 * chapter 11. Replace the body below; `make test` runs your tests once this file has
 * changed. */
#include "ch11.h"

int vocab_parallel_xent(Comm *c, const float *logits, const int *labels, int B, int cols,
                        int first, float *loss, float *dlogits, char *err)
{
    /* TODO: what must every rank know about each row, beyond its own logits, to finish its
     * share? Exchange only that. */
    (void)c;
    (void)logits;
    (void)labels;
    (void)B;
    (void)cols;
    (void)first;
    (void)loss;
    (void)dlogits;
    return error_set(err, "vocab_parallel_xent: not written yet");
}
