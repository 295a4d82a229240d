/**
 * @file mlp_main.c
 * @brief The program mlp: one device trains an MLP (chapter 1).
 */
#line 62 "chapters/A3-programs.nw"
#include "run.h"
#include "strategy.h"

#line 82 "chapters/A3-programs.nw"
static const char *summary = "Train an MLP on one device, the CPU or a CUDA GPU.";
static const char *examples =
    "  ./mlp --epochs 3                        train on the synthetic set\n"
    "  ./mlp --hidden 256,128 --lr 0.1         two hidden layers\n"
    "  ./mlp --data data/mnist --epochs 10     MNIST (the four IDX files in data/mnist)\n"
    "  ./mlp --device cpu --log mlp.csv        the CPU, with a CSV row per epoch\n"
    "  ./mlp --checkpoint mlp.ckpt --resume    go on from the last finished epoch\n";

#line 102 "chapters/A3-programs.nw"
/** Parse, then train with the one-device row of the strategy table. */
int main(int argc, char **argv)
{
    static Run run = {.strategy = &strategy_single};
    int status = run_parse(&run, argc, argv, OPTS_TRAIN, summary, examples);
    return status != RUN_GO ? status : run_training(&run);
}
