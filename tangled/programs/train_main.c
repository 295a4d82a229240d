/**
 * @file train_main.c
 * @brief The program train: every strategy of the book behind one command line (chapter 6).
 */
#line 947 "chapters/A3-programs.nw"
#include "options.h"
#include "run.h"
#include "strategy.h"

#line 967 "chapters/A3-programs.nw"
static const char *summary =
    "Train an MLP with any strategy of the book: one device, a parameter server, the ring,\n"
    "the ring with DDP-style buckets overlapped with backward, MPI_Allreduce, NCCL, one\n"
    "process driving every replica (DataParallel), ZeRO-1 and -2, FSDP, and the direct\n"
    "all-reduce of chapter 8 (the default). The command line is the PyTorch toy's.";
static const char *examples =
    "  ./train --strategy ring --n_gpus 4                  as ./ring --n_gpus 4\n"
    "  ./train --strategy param_server --n_gpus 4          as ./ps --n_gpus 4\n"
    "  ./train --strategy ring_bucketed --bucket_mb 0.1    small buckets, overlapped\n"
    "  ./train --strategy data_parallel --n_gpus 2         one process, two replicas\n"
    "  mpirun -np 2 ./train --strategy mpi                 MPI_Allreduce\n"
    "  ./train --strategy nccl --n_gpus 2 --device cuda    ncclAllReduce, one rank per GPU\n";

#line 995 "chapters/A3-programs.nw"
/** Parse, find the strategy's row, train with it. */
int main(int argc, char **argv)
{
    static Run run;
    static char names[256];
    strategy_names(names, sizeof names, 0, "|");
    options_set_choices(OPT_STRATEGY, names);
    unsigned accepted = OPTS_TRAIN | OPTS_RANKS | OPT_TRANSPORT | OPT_STRATEGY | OPT_BUCKET |
                        OPT_RANKS_PER_HOST | OPT_CODEC;
    int status = run_parse(&run, argc, argv, accepted, summary, examples);
    if (status != RUN_GO)
        return status;
    run.strategy = strategy_find(run.o.strategy); /* the parser took only the table's names */
    return run_training(&run);
}
