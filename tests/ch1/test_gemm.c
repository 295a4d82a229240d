/* Chapter 1: the GEMMs (plain C, and the device's: OpenBLAS or cuBLAS) against a naive
 * triple loop in double (gemm_check.h). */
#include "gemm_check.h"

Test(ch1_gemm, plain_c_exact_on_integers) { gemm_check("gemm_plain", gemm_plain, NULL, true); }
Test(ch1_gemm, plain_c_random) { gemm_check("gemm_plain", gemm_plain, NULL, false); }
Test(ch1_gemm, device_exact_on_integers)
{
    const Device *d = test_device();
    gemm_check(d->description, NULL, d, true);
}
Test(ch1_gemm, device_random)
{
    const Device *d = test_device();
    gemm_check(d->description, NULL, d, false);
}
