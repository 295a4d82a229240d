/**
 * @file ranks.c
 * @brief The run layer: parse, decide how the ranks run, start them (chapters 2, 6, 8).
 */
#line 3282 "chapters/02-shm.nw"
#include "run.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "comm_mpi.h"
#include "comm_shm.h"
#include "launch.h"
#include "optimizer.h"
#include "trace.h"
#include "util.h"

#line 2911 "chapters/02-shm.nw"
int run_parse(Run *run, int argc, char **argv, unsigned accepted, const char *summary,
              const char *examples)
{
    static char transports[ERR_LEN / 4], optimizers[ERR_LEN / 4]; /* the parser keeps them */
    char err[ERR_LEN];
    set_program_name(argv[0]);
    options_defaults(&run->o);
    transport_names(transports, sizeof transports, "|");
    options_set_choices(OPT_TRANSPORT, transports);
    optimizer_names(optimizers, sizeof optimizers, "|");
    options_set_choices(OPT_OPTIMIZER, optimizers);
    if (options_parse(&run->o, argc, argv, accepted, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
    if (run->o.help) {
        options_usage(stdout, summary, accepted, examples);
        return 0;
    }
    return RUN_GO;
}

#line 2890 "chapters/02-shm.nw"
int run_start(Run *run, bool mpi)
{
    run->ranks = run->o.n_gpus;
    run->transport = mpi ? &transport_mpi : transport_find(run->o.transport);
    run->mpi = run->transport->join != NULL;
    run->mpi_rank = 0;
    if (run->mpi) {
#line 779 "chapters/06-production.nw"
        char err[ERR_LEN];
        int size;
        if (run->transport->join(&run->mpi_rank, &size, err)) {
            fprintf(stderr, "%s: %s\n", program_name(), err);
            return EXIT_USAGE;
        }
        if ((run->o.given & OPT_N_GPUS) && run->o.n_gpus != size) {
            if (run->mpi_rank == 0)
                fprintf(stderr,
                        "%s: --n_gpus %d, but mpirun started %d process(es): give mpirun "
                        "-np %d, or leave --n_gpus out\n",
                        program_name(), run->o.n_gpus, size, run->o.n_gpus);
#line 792 "chapters/06-production.nw"
            run->transport->leave();
            return EXIT_USAGE;
        }
        run->ranks = size;
        comm_mpi_timeout(run->o.timeout); /* chapter 9: a host's ranks wait this long */
    }
#line 2898 "chapters/02-shm.nw"
    return RUN_GO;
}
#line 642 "chapters/08-direct.nw"
/** Bind this process to the @p rank-th block of (allowed cores / @p size) allowed cores,
 *  when @p size ranks each can have one at least. */
static void bind_to_core(int rank, int size)
{
#ifdef DPS_NO_BIND /* make bench's copy without either remedy, to measure what they buy */
    return;
#endif
    cpu_set_t allowed, mine;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < size)
        return;
    int share = CPU_COUNT(&allowed) / size, first = rank * share;
    CPU_ZERO(&mine);
    for (int cpu = 0, k = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        if (k >= first && k < first + share)
            CPU_SET(cpu, &mine);
        k++; /* the k-th allowed core */
    }
    sched_setaffinity(0, sizeof mine, &mine);
}

#line 2952 "chapters/02-shm.nw"
/** The prelude of every rank, then the program's body. */
static int rank_main(int rank, int size, void *arg, char *err)
{
    Run *run = arg;
    Rank r = {.rank = rank, .size = size, .run = run};
    launch_phase("opening the device");
    if (!(r.dev = device_open(run->o.device, rank, r.note, err)))
        return -1;
    long cores = cores_available(); /* the ranks share the process's cores */
    device_cpu_threads((int)(cores / size > 0 ? cores / size : 1));
    if (run->w) /* chapter 8: forked ranks, cores of their own when there are enough */
        bind_to_core(rank, size);
    if ((run->w || run->mpi) &&
        comm_open_rank(run->transport, run->w, rank, r.dev, &r.c, &r.host, err))
        return -1;
    if (run->o.trace) /* appendix A: the rank records its own timeline */
        trace_start(rank);
    if (run->body(&r, err))
        return -1;
    if (r.c)
        comm_close_rank(r.c, r.host);
    launch_phase("closing the device");
    return device_close(r.dev, err);
}
#line 3028 "chapters/02-shm.nw"
int run_ranks(Run *run, int (*body)(Rank *r, char *err))
{
    char err[ERR_LEN];
    run->body = body;
    if (run->mpi) {
#line 1296 "chapters/09-hosts.nw"
        char host[64] = "?", who[128];
        gethostname(host, sizeof host - 1);
        snprintf(who, sizeof who, "rank %d on %s", run->mpi_rank, host);
        launch_watch(run->mpi_rank, run->o.timeout, who);
#line 817 "chapters/06-production.nw"
        if (rank_main(run->mpi_rank, run->ranks, run, err)) {
            fprintf(stderr, "%s: %s: %s\n", program_name(), who, err);
            run->transport->abort(EXIT_FAILURE);
        }
        return 0;
    }
#line 3034 "chapters/02-shm.nw"
    if (!(run->w = shm_world_create(run->ranks, 0, run->o.timeout, err)))
        return run_fail(run, err);
    int rc = launch(run->ranks, rank_main, run, 0, err);
    shm_world_destroy(run->w);
    run->w = NULL;
    return rc ? run_fail(run, err) : 0;
}

int run_fail(Run *run, const char *line)
{
    fprintf(stderr, "%s: %s\n", program_name(), line);
    run->status = EXIT_FAILURE;
    return EXIT_FAILURE;
}
#line 920 "chapters/03-ps.nw"
int run_one(Run *run, int (*body)(Rank *r, char *err))
{
    char err[ERR_LEN];
    run->body = body;
    return rank_main(0, 1, run, err) ? run_fail(run, err) : 0;
}
