/**
 * @file hierarchy.h
 * @brief Ranks grouped by host, and the hierarchical all-reduce (chapter 9).
 */
#ifndef DPS_HIERARCHY_H
#define DPS_HIERARCHY_H

#include <stddef.h>

#include "comm.h"

/** Longest host name kept. */
#define HOST_NAME_LEN 64

/** A run's ranks grouped by host, from one rank's place in it. */
typedef struct Hierarchy {
    Comm *local;               /**< the ranks of this host, in rank order */
    Comm *cross;               /**< the ranks of this one's place on every host */
    int hosts;                 /**< H, the number of hosts */
    int per_host;              /**< L, ranks on every host */
    char name[HOST_NAME_LEN];  /**< this rank's host */
    char first[HOST_NAME_LEN]; /**< the first host's name, and ... */
    char last[HOST_NAME_LEN];  /**< ... the last's, for the banner */
    Dtype dtype; /**< what the ring across hosts sends (chapter 10); DTYPE_FP32: floats */
    void *wire;  /**< the coded ring's buffer, or NULL */
} Hierarchy;

/**
 * Group the ranks of @p c by host, all-gathering their host names over @p host (a
 * collective call); @p ranks_per_host > 0 pretends instead that ranks come in hosts of that
 * many, in rank order. Every host must have as many ranks. 0, or -1 with @p err.
 */
int hierarchy_open(Hierarchy *h, Comm *c, Comm *host, int ranks_per_host, char *err);
/** Free the views of hierarchy_open(). */
void hierarchy_close(Hierarchy *h);
/**
 * The hierarchical all-reduce in place: within each host, every rank reduces its chunk of
 * @p buf from its host's buffers (reading them where they lie); the ranks of one place on
 * every host all-reduce that chunk with the ring; every rank copies the other chunks from
 * their owners on its host. @p buf must come from h->local->alloc_shared() when a host has
 * several ranks. Afterwards every rank holds @p scale times the sum over all ranks, the same
 * bits everywhere. @p scratch: hierarchy_scratch() floats. 0, or -1 with @p err.
 */
int hierarchical_all_reduce(const Hierarchy *h, float *buf, size_t count, float *scratch,
                            float scale, char *err);
/** Floats of scratch hierarchical_all_reduce() needs for @p count floats. */
size_t hierarchy_scratch(const Hierarchy *h, size_t count);

#endif
