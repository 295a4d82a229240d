/* Tests of exercise 11.1, tensor_split_plan: models whose best plans are worked out by hand
 * (each comment gives the plans and their costs). */
#include "split_plan.h"

/* 784-1024-1024-10 on 2 ranks. Pair (0, 1), layer 2 whole: 785 * 1024 / 2 + 1024 * 1024 / 2
 * + 1024 + 1025 * 10 = 937,482 floats, 1,024 all-reduced (forward; the data needs none).
 * Layer 0 whole, pair (1, 2): 803,840 + 524,800 + 5,120 + 10 = 1,333,770. All whole:
 * 1,863,690. */
Test(ex_tensor_split_plan, the_books_heavy_shape)
{
    const int w[] = {784, 1024, 1024, 10};
    check_plan("784-1024-1024-10", w, 3, 2, 937482, 1024);
}

/* 784-10-4096-4096 on 2 ranks: pairing from the first layer, as the strategy does, splits the
 * small pair and leaves the 4096 x 4096 layer whole (3,925 + 20,480 + 4,096 + 16,781,312 =
 * 16,809,813). Layer 0 whole and pair (1, 2): 7,850 + 22,528 + 8,388,608 + 4,096 =
 * 8,423,082, all-reducing 4,096 forward and 10 backward. */
Test(ex_tensor_split_plan, a_small_layer_first_is_left_whole)
{
    const int w[] = {784, 10, 4096, 4096};
    check_plan("784-10-4096-4096", w, 3, 2, 8423082, 4106);
}

/* 64-30-64-10 on 4 ranks: 4 does not divide 30, so layers 0 and 1 cannot pair. All whole:
 * 1,950 + 1,984 + 650 = 4,584. Pair (1, 2): 1,950 + 496 + 160 + 10 = 2,616, all-reducing 10
 * forward and 30 backward. */
Test(ex_tensor_split_plan, pairs_only_where_T_divides_the_hidden_units)
{
    const int w[] = {64, 30, 64, 10};
    check_plan("64-30-64-10", w, 3, 4, 2616, 40);
}

/* One layer: no pair. One rank: a pair costs what its layers whole cost (1,853,440 either
 * way for layers 0 and 1 of 784-1024-1024-10), and all-reduces 1,024 floats for nothing: every
 * layer whole, 1,863,690 floats, none all-reduced. */
Test(ex_tensor_split_plan, one_layer_and_one_rank)
{
    const int one[] = {5, 3}, w[] = {784, 1024, 1024, 10};
    check_plan("5-3", one, 1, 2, 18, 0);
    check_plan("784-1024-1024-10", w, 3, 1, 1863690, 0);
}
