/**
 * @file traffic.h
 * @brief The banner's traffic lines that several rows of the strategy table print.
 */
#ifndef DPS_TRAFFIC_H
#define DPS_TRAFFIC_H

#include <stddef.h>

/** The banner's traffic line of an all-reduce that meets the ring's bound. */
void allreduce_traffic(char *line, size_t len, int ranks, size_t bytes);
/** The same, for the ring: the bytes go to the neighbour. */
void ring_traffic(char *line, size_t len, int ranks, size_t bytes);

#endif
