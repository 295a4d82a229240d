/* The compressor that 10.2's public tests link when the grader has the hidden side: the
 * book's own (tests/grade.sh links it in place of the student's 10.1, so that a wrong 10.1
 * is not charged twice). Where there is no hidden side, the student's own 10.1 is linked. */
#include "ch10.h"
#include "onebit_reference.h"

void onebit_compress(const float *g, float *error, size_t n, uint8_t *bits, float *hi,
                     float *lo)
{
    onebit_reference(g, error, n, bits, hi, lo);
}
