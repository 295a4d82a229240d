/**
 * @file transport.c
 * @brief The transport table, and opening a rank's communicators with a row of it.
 */
#line 3166 "chapters/02-shm.nw"
#include "transport.h"

#include <stdio.h>
#include <string.h>

const TransportDef *const transport_table[] = {
#line 3181 "chapters/02-shm.nw"
    &transport_shm,
    &transport_mpi,
    NULL,
};

#line 3185 "chapters/02-shm.nw"
const TransportDef *transport_find(const char *name)
{
    for (const TransportDef *const *t = transport_table; *t; t++)
        if (strcmp((*t)->name, name) == 0)
            return *t;
    return NULL;
}

void transport_names(char *buf, size_t len, const char *sep)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const TransportDef *const *t = transport_table; *t && used < len; t++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "", (*t)->name);
}
#line 3203 "chapters/02-shm.nw"
int comm_open_rank(const TransportDef *t, ShmWorld *w, int rank, const Device *dev, Comm **c,
                   Comm **host, char *err)
{
    *host = NULL;
    *c = t->open(w, rank, dev, err);
    if (*c)
        *host = t->host ? t->host(*c, err) : *c;
    return *host ? 0 : -1; /* on failure the rank ends: closing is collective, so don't */
}

void comm_close_rank(Comm *c, Comm *host)
{
    if (host != c)
        host->close(host);
    c->close(c);
}
