/**
 * @file strategies.c
 * @brief The strategy table: every row, in order (chapter 6).
 */
#line 2994 "chapters/06-production.nw"
#include "strategy.h"

#include <string.h>

#line 3012 "chapters/06-production.nw"
const StrategyDef strategy_single = {
    .name = "single",
    .title = "one device",
    .trainer = "rank",
    .shape = SHAPE_ONE,
    .min_ranks = 1,
    .no_codec = "one device sends no gradient",
};

const StrategyDef *const strategy_table[] = {
    &strategy_single, &strategy_ps,   &strategy_ring,          &strategy_ring_bucketed,
    &strategy_mpi,    &strategy_nccl, &strategy_data_parallel, &strategy_zero1,
    &strategy_zero2,  &strategy_fsdp, &strategy_direct,        &strategy_hierarchical,
    &strategy_tensor, NULL,
};

#line 3042 "chapters/06-production.nw"
const StrategyDef *strategy_find(const char *name)
{
    for (const StrategyDef *const *d = strategy_table; *d; d++)
        if (strcmp((*d)->name, name) == 0)
            return *d;
    return NULL;
}

void strategy_names(char *buf, size_t len, unsigned needs, const char *sep)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const StrategyDef *const *d = strategy_table; *d && used < len; d++)
        if (((*d)->needs & needs) == needs)
            used +=
                (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "", (*d)->name);
}
