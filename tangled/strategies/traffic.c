/**
 * @file traffic.c
 * @brief The banner's traffic lines that several strategies print (chapters 5-8).
 */
#line 706 "chapters/05-ag.nw"
#include "traffic.h"

#include <stdio.h>
#include <string.h>

#include "report.h"

#line 717 "chapters/05-ag.nw"
void allreduce_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    char b1[32], b2[32];
    snprintf(line, len, "each rank sends %s per step (2(N-1)/N x %s)",
             format_bytes(b1, (size_t)(2.0 * (ranks - 1) / ranks * (double)bytes)),
             format_bytes(b2, bytes));
}

void ring_traffic(char *line, size_t len, int ranks, size_t bytes)
{
    allreduce_traffic(line, len, ranks, bytes);
    strncat(line, " to its neighbour", len - strlen(line) - 1);
}
