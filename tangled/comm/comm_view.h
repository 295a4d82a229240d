/**
 * @file comm_view.h
 * @brief A communicator of some of another's ranks (chapter 9).
 */
#ifndef DPS_COMM_VIEW_H
#define DPS_COMM_VIEW_H

#include "comm.h"

/**
 * A communicator of the @p n ranks @p members of @p parent, in that order: rank i of the
 * view is @p members[i] of the parent, which must be among them. Messages go through the
 * parent; windows too, so the view's alloc_shared is collective over the parent's ranks.
 * The parent must outlive the view. NULL with @p err when @p members are not distinct
 * ranks of @p parent.
 */
Comm *comm_view(Comm *parent, const int *members, int n, char *err);

#endif
