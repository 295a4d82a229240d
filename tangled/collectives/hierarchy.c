/**
 * @file hierarchy.c
 * @brief Ranks grouped by host, and the hierarchical all-reduce (chapter 9).
 */
#line 747 "chapters/09-hosts.nw"
#include "hierarchy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coded_ring.h"
#include "collectives.h"
#include "comm_view.h"
#include "launch.h"
#include "util.h"

#line 775 "chapters/09-hosts.nw"
/** Rank @p q's slot of the table of names. */
static char *name_of(const char *names, int q)
{
    return (char *)names + (size_t)q * HOST_NAME_LEN;
}

/** Every rank's host name into @p names (@p n slots of HOST_NAME_LEN). */
static int gather_names(Comm *host, int ranks_per_host, char *names, char *err)
{
    int n = host->size;
    for (int q = 0; q < n; q++)
        if (ranks_per_host > 0)
            snprintf(name_of(names, q), HOST_NAME_LEN, "host%d", q / ranks_per_host + 1);
    if (ranks_per_host > 0)
        return 0;
    char *mine = name_of(names, host->rank);
    if (gethostname(mine, HOST_NAME_LEN - 1) != 0)
        strcpy(mine, "?");
    return ring_all_gather(host, names, (size_t)n * HOST_NAME_LEN, 1, err);
}
#line 801 "chapters/09-hosts.nw"
/** Each rank's host number into @p host_of: hosts in the order of their first rank. */
static int number_hosts(const char *names, int n, int *host_of)
{
    int hosts = 0;
    for (int q = 0; q < n; q++) {
        host_of[q] = -1;
        for (int p = 0; p < q && host_of[q] < 0; p++)
            if (strcmp(name_of(names, p), name_of(names, q)) == 0)
                host_of[q] = host_of[p];
        if (host_of[q] < 0)
            host_of[q] = hosts++;
    }
    return hosts;
}
#line 822 "chapters/09-hosts.nw"
static int check_even(const char *names, const int *host_of, int n, int hosts, int *per_host,
                      char *err)
{
    int *count = xcalloc((size_t)hosts, sizeof *count), odd = -1;
    for (int q = 0; q < n; q++)
        count[host_of[q]]++;
    for (int h = 1; h < hosts && odd < 0; h++)
        if (count[h] != count[0])
            odd = h;
    *per_host = count[0];
    int rc = 0;
    if (odd >= 0) {
        int first_odd = 0;
        while (host_of[first_odd] != odd)
            first_odd++;
        rc = error_set(err,
                       "a hierarchy needs as many ranks on every host: %s has %d, "
                       "%s has %d",
                       names, count[0], name_of(names, first_odd), count[odd]);
#line 839 "chapters/09-hosts.nw"
    }
    free(count);
    return rc;
}
#line 851 "chapters/09-hosts.nw"
int hierarchy_open(Hierarchy *h, Comm *c, Comm *host, int ranks_per_host, char *err)
{
    int n = c->size, hosts, per_host;
    memset(h, 0, sizeof *h);
    if (ranks_per_host > 0 && n % ranks_per_host)
        return error_set(err, "--ranks_per_host %d does not divide the %d ranks",
                         ranks_per_host, n);
    char *names = xcalloc((size_t)n, HOST_NAME_LEN);
    int *host_of = xcalloc((size_t)n, sizeof *host_of), rc = -1;
    int *local = xcalloc((size_t)n, sizeof *local), *cross = xcalloc((size_t)n, sizeof *cross);
    if (gather_names(host, ranks_per_host, names, err) == 0 &&
        check_even(names, host_of, n, hosts = number_hosts(names, n, host_of), &per_host,
                   err) == 0) {
#line 890 "chapters/09-hosts.nw"
        int place = 0, k = 0;
        for (int q = 0; q < c->rank; q++)
            place += host_of[q] == host_of[c->rank];
        for (int q = 0; q < n; q++)
            if (host_of[q] == host_of[c->rank])
                local[k++] = q;
        for (int g = 0; g < hosts; g++) /* the place-th rank of host g */
            for (int q = 0, seen = 0; q < n; q++)
                if (host_of[q] == g && seen++ == place)
                    cross[g] = q;
#line 865 "chapters/09-hosts.nw"
        h->local = comm_view(c, local, per_host, err);
        h->cross = h->local ? comm_view(c, cross, hosts, err) : NULL;
        h->hosts = hosts, h->per_host = per_host;
#line 903 "chapters/09-hosts.nw"
        snprintf(h->name, sizeof h->name, "%s", name_of(names, c->rank));
        snprintf(h->first, sizeof h->first, "%s", names);
        snprintf(h->last, sizeof h->last, "%s", name_of(names, n - 1));
#line 869 "chapters/09-hosts.nw"
        rc = h->cross ? 0 : -1;
    }
    free(names), free(host_of), free(local), free(cross);
    return rc;
}
#line 879 "chapters/09-hosts.nw"
void hierarchy_close(Hierarchy *h)
{
    if (h->cross)
        h->cross->close(h->cross);
    if (h->local)
        h->local->close(h->local);
    memset(h, 0, sizeof *h);
}
#line 947 "chapters/09-hosts.nw"
/** The ring across hosts on buf[0..count), the ranks of one place (coded: chapter 10). */
static int cross_ring(const Hierarchy *h, float *buf, size_t count, float *scratch, float scale,
                      char *err)
{
#line 1687 "chapters/10-compress.nw"
    if (h->dtype != DTYPE_FP32)
        return ring_all_reduce_coded(h->cross, buf, count, h->dtype, h->wire, scale, err);
#line 952 "chapters/09-hosts.nw"
    return ring_all_reduce(h->cross, buf, count, scratch, scale, err);
}
#line 957 "chapters/09-hosts.nw"
size_t hierarchy_scratch(const Hierarchy *h, size_t count)
{
    return chunk_max(chunk_max(count, h->per_host), h->hosts);
}

int hierarchical_all_reduce(const Hierarchy *h, float *buf, size_t count, float *scratch,
                            float scale, char *err)
{
    Comm *in = h->local;
    int n = in->size, r = in->rank;
    size_t lo = chunk_start(count, n, r), hi = chunk_start(count, n, r + 1);
    if (n == 1) /* one rank a host: the ring across hosts is the whole of it */
        return cross_ring(h, buf, count, scratch, scale, err);
    float *v[DEVICE_MAX_SOURCES];
    if (direct_copies(in, buf, v, err))
        return -1;
    uint32_t base = in->progress(in);
#line 984 "chapters/09-hosts.nw"
    const float *part[DEVICE_MAX_SOURCES];
    launch_phase("hierarchical: reduce-scatter within the host, %zu floats", count);
    in->advance(in, base + 1); /* my buffer is ready */
    if (direct_wait_all(in, base + 1, err))
        return -1;
    for (int q = 0; q < n; q++)
        part[q] = v[q] + lo;
    in->dev->reduce(hi - lo, part, n, 1.0f, buf + lo);
#line 975 "chapters/09-hosts.nw"
    launch_phase("hierarchical: ring across %d hosts, %zu floats", h->hosts, hi - lo);
    if (cross_ring(h, buf + lo, hi - lo, scratch, scale, err))
        return -1;
#line 995 "chapters/09-hosts.nw"
    launch_phase("hierarchical: all-gather within the host, %zu floats", count);
    in->advance(in, base + 2); /* my chunk holds the total */
    if (direct_wait_all(in, base + 2, err))
        return -1;
    for (int k = 1; k < n; k++) {
        int q = (r + k) % n;
        size_t qlo = chunk_start(count, n, q), qhi = chunk_start(count, n, q + 1);
        in->dev->copy(buf + qlo, v[q] + qlo, (qhi - qlo) * sizeof(float));
    }
    in->advance(in, base + 3); /* I have read every owner's chunk */
    if (direct_wait_all(in, base + 3, err))
        return -1;
#line 979 "chapters/09-hosts.nw"
    return 0;
}
