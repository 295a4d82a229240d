/**
 * @file ring_main.c
 * @brief The program ring: data-parallel training with the ring all-reduce (chapter 5).
 */
#line 876 "chapters/A3-programs.nw"
#include "run.h"
#include "strategy.h"

#line 894 "chapters/A3-programs.nw"
static const char *summary =
    "Train an MLP data-parallel over N ranks with the ring all-reduce: each rank computes\n"
    "gradients on its share of every global batch of N x batch_size samples, and the ring\n"
    "averages them (share-reduce, then share-only).";
static const char *examples =
    "  ./ring --n_gpus 4                        4 ranks, global batch 256\n"
    "  ./ring --n_gpus 2 --batch_size 32        global batch 64, as ./mlp's default\n"
    "  ./ring --n_gpus 8 --device cpu --quiet   8 processes, the final line only\n"
    "  mpirun -np 4 ./ring --transport mpi      4 MPI processes (chapter 6)\n";

#line 915 "chapters/A3-programs.nw"
/** Parse, then train with the ring. */
int main(int argc, char **argv)
{
    static Run run = {.strategy = &strategy_ring};
    unsigned accepted = OPTS_TRAIN | OPTS_RANKS | OPT_TRANSPORT | OPT_CODEC;
    int status = run_parse(&run, argc, argv, accepted, summary, examples);
    return status != RUN_GO ? status : run_training(&run);
}
