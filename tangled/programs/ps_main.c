/**
 * @file ps_main.c
 * @brief The program ps: data-parallel training through a parameter server (chapter 3).
 */
#line 324 "chapters/A3-programs.nw"
#include "run.h"
#include "strategy.h"

#line 342 "chapters/A3-programs.nw"
static const char *summary =
    "Train an MLP with a parameter server: rank 0 keeps the weights, ranks 1..N-1 compute\n"
    "gradients on their share of each global batch of (N-1) x batch_size samples.";
static const char *examples =
    "  ./ps --n_gpus 4                          a server and 3 workers\n"
    "  ./ps --n_gpus 3 --batch_size 32          global batch 64, as ./mlp's default\n"
    "  ./ps --n_gpus 8 --device cpu --quiet     8 processes, the final line only\n";

#line 362 "chapters/A3-programs.nw"
/** Parse, then train with the parameter server. */
int main(int argc, char **argv)
{
    static Run run = {.strategy = &strategy_ps};
    int status = run_parse(&run, argc, argv, OPTS_TRAIN | OPTS_RANKS, summary, examples);
    return status != RUN_GO ? status : run_training(&run);
}
