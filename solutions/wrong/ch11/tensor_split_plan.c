/* Wrong on purpose: the layers paired as the tensor strategy pairs them, (0, 1), (2, 3), ...,
 * wherever T divides the units a pair shares, without weighing the plans: it splits a small
 * pair first and leaves a large layer whole when the large layers come in odd numbers, and
 * pairs at T = 1, where a pair saves nothing and all-reduces for nothing.
 * Fails: ex_tensor_split_plan::a_small_layer_first_is_left_whole
 * Fails: ex_tensor_split_plan::one_layer_and_one_rank
 * Fails: hidden_tensor_split_plan::random_models_against_every_plan
 * Fails: hidden_tensor_split_plan::three_thousand_layers
 * Fails: hidden_tensor_split_plan::edges
 */
#include "ch11.h"

size_t tensor_split_plan(const int *widths, int L, int T, int *split, size_t *allreduced)
{
    size_t floats = 0, sent = 0;
    for (int l = 0; l < L; l++) {
        size_t in = (size_t)widths[l], mid = (size_t)widths[l + 1];
        if (l + 1 < L && mid % (size_t)T == 0) {
            size_t out = (size_t)widths[l + 2];
            floats += (in + 1) * mid / T + mid * out / T + out;
            sent += out + (l > 0 ? in : 0);
            split[l] = 1, split[l + 1] = 2, l++;
        } else {
            floats += (in + 1) * mid;
            split[l] = 0;
        }
    }
    *allreduced = sent;
    return floats;
}
