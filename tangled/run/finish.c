/**
 * @file finish.c
 * @brief The run layer: compare the replicas, report, release the run (chapters 2, 3).
 */
#line 3357 "chapters/02-shm.nw"
#include "run.h"

#include <errno.h>
#include <string.h>

#include "collectives.h"
#include "launch.h"
#include "trace.h"

#line 1040 "chapters/03-ps.nw"
/** After training: compare the replicas, print the final figures (@p res: this rank's). */
int run_report(const Rank *r, const Strategy *s, const Model *m, const TrainResult *res,
               char *err)
{
    const Options *o = &r->run->o;
    uint64_t hash = 0;
    launch_phase("comparing the replicas");
    if (r->host && replicas_agree(r->host, m, &hash, err))
        return -1;
    if (res) {
        train_report_end(stdout, res, o->quiet);
        if (!o->quiet && r->size > 1)
            printf("replicas: the weights of all %d ranks are identical (hash %016llx)\n",
                   r->size, (unsigned long long)hash);
        fflush(stdout);
    }
    if (r->host && r->host->barrier(r->host, err)) /* the strategy's figures come last */
        return -1;
    if (r->rank == 0 && !o->quiet && r->run->strategy->report)
        r->run->strategy->report(s, stdout);
    return 0;
}
#line 3054 "chapters/02-shm.nw"
int run_finish(Run *run)
{
    char err[ERR_LEN];
    if (run->log && fclose(run->log) != 0) {
        snprintf(err, sizeof err, "--log %s: %s", run->o.log, strerror(errno));
        run_fail(run, err);
    }
    run->log = NULL;
#line 2688 "chapters/A1-support.nw"
    if (run->o.trace && (trace_write(run->o.trace, err) ||
                         (run->trace_owner && trace_close(run->o.trace, err))))
        run_fail(run, err);
#line 3063 "chapters/02-shm.nw"
    data_free(&run->train);
    data_free(&run->test);
    checkpoint_free(&run->resume);
    return run->status;
}
