/* Exercise 9.1: An all-reduce of small buffers across hosts (2 stars, 20 points). Read the end
 * of chapter 9. Replace the body below; `make test` runs your tests once this file has changed. */
#include "ch9.h"

int tree_all_reduce(Comm *c, int L, float *buf, size_t count, float *scratch, char *err)
{
    /* TODO: refuse hosts that do not divide the ranks; then the sum, on every rank, within the
     * header's bounds on the messages between hosts and on the steps. */
    (void)c, (void)L, (void)buf, (void)count, (void)scratch;
    return error_set(err, "tree_all_reduce: not written yet");
}
