/**
 * @file nccl_strategy.c
 * @brief NCCL's all-reduce as a strategy: the native strategy over NCCL's communicator.
 */
#line 2323 "chapters/06-production.nw"
#include "production.h"

#include <stdlib.h>

#include "comm_nccl.h"
#include "strategy.h"
#include "traffic.h"
#include "util.h"

#line 3232 "chapters/06-production.nw"
static int nccl_row_open(Strategy *s, const StrategyEnv *e, char *err)
{
    char why[ERR_LEN];
    NativeState *st = xcalloc(1, sizeof *st);
    Comm *nccl = comm_nccl_open(e->c, e->host, why);
    if (!nccl || native_strategy(s, st, nccl, e->host, why)) {
        if (nccl)
            nccl->close(nccl);
        free(st);
        return error_set(err, "--strategy nccl: %.400s", why);
    }
    return 0;
}

static void nccl_row_close(Strategy *s)
{
    NativeState *st = s->state;
    st->c->close(st->c);
    free(st);
}

#line 3263 "chapters/06-production.nw"
static int nccl_check(int ranks, bool cpu, char *why, size_t len)
{
    int gpus = cpu ? 0 : gpu_count();
    if (gpus == 0)
        snprintf(why, len,
                 "--strategy nccl: no GPU answered on this machine, and NCCL runs on GPUs "
                 "only, one per rank; use --strategy ring, which runs on the CPU too");
    else if (gpus < ranks)
        snprintf(why, len,
                 "--strategy nccl: %d ranks but %d GPU%s answered: NCCL needs one GPU "
                 "per rank (two ranks of one communicator cannot share a GPU); use --n_gpus %d "
                 "or --strategy ring",
                 ranks, gpus, gpus == 1 ? "" : "s", gpus);
#line 3275 "chapters/06-production.nw"
    return gpus < ranks ? -1 : 0;
}

#line 3205 "chapters/06-production.nw"
const StrategyDef strategy_nccl = {
    .name = "nccl",
    .title = "NCCL",
    .trainer = "rank",
    .shape = SHAPE_RANKS,
    .needs = NEEDS_GPUS,
    .min_ranks = 1,
    .no_codec = "ncclAllReduce adds bfloat16 and half in 16 bits, and the codec adds in fp32",
    .open = nccl_row_open,
    .close = nccl_row_close,
    .traffic = allreduce_traffic,
    .check = nccl_check,
};
