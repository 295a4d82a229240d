/* Exercise 7.3, reference solution: FSDP's schedule, with prefetch. */
#include "ch7.h"

int fsdp_schedule(int n_layers, FsdpEvent *ev, int max)
{
    if (n_layers < 1)
        return 0;
    /* 9L - 3 events, counted in long long: beyond 238 million layers they do not fit an int,
     * and no int max is then large enough. */
    if (9LL * n_layers - 3 > max)
        return -1;
    int n = 0;
    ev[n++] = (FsdpEvent){FSDP_GATHER, 0};
    for (int l = 0; l < n_layers; l++) {
        if (l + 1 < n_layers)
            ev[n++] = (FsdpEvent){FSDP_GATHER, l + 1}; /* prefetch: overlaps l's forward */
        ev[n++] = (FsdpEvent){FSDP_WAIT, l};
        ev[n++] = (FsdpEvent){FSDP_FORWARD, l};
        if (l < n_layers - 1) /* the last layer's parameters are kept for backward */
            ev[n++] = (FsdpEvent){FSDP_FREE, l};
    }
    for (int l = n_layers - 1; l >= 0; l--) {
        if (l > 0)
            ev[n++] = (FsdpEvent){FSDP_GATHER, l - 1}; /* prefetch: overlaps l's backward */
        if (l < n_layers - 1) /* gathered again; the kept last layer needs no wait */
            ev[n++] = (FsdpEvent){FSDP_WAIT, l};
        ev[n++] = (FsdpEvent){FSDP_BACKWARD, l};
        ev[n++] = (FsdpEvent){FSDP_SCATTER, l};
        ev[n++] = (FsdpEvent){FSDP_FREE, l};
    }
    return n;
}
