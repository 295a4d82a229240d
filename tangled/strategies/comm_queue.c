/**
 * @file comm_queue.c
 * @brief A thread that runs a rank's collectives in order (chapter 6).
 */
#line 1392 "chapters/06-production.nw"
#include "comm_queue.h"

#include <string.h>

#include "trace.h"
#include "util.h"

#line 1442 "chapters/06-production.nw"
static void *queue_thread(void *arg)
{
    CommQueue *q = arg;
    if (q->dev->bind_thread) /* CUDA's current GPU is per thread */
        q->dev->bind_thread();
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->stop && q->done == q->posted)
            pthread_cond_wait(&q->cv, &q->mu);
        if (q->stop)
            break;
        int kind = q->kind[q->done % QUEUE_SLOTS], item = q->item[q->done % QUEUE_SLOTS];
        bool skip = q->failed;
        pthread_mutex_unlock(&q->mu);
        char err[ERR_LEN];
        double t0 = now_seconds();
        int rc = skip ? 0 : q->work(q->state, kind, item, err);
        double dt = now_seconds() - t0;
        trace_span(LANE_COMM, t0, t0 + dt, "%s %d", q->names[kind], item);
        pthread_mutex_lock(&q->mu);
#line 1482 "chapters/06-production.nw"
        q->busy += dt;
        if (rc && !q->failed) {
            q->failed = true;
            memcpy(q->err, err, ERR_LEN);
        }
        q->done++;
        pthread_cond_broadcast(&q->cv);
#line 1463 "chapters/06-production.nw"
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

#line 1492 "chapters/06-production.nw"
int queue_start(CommQueue *q, const Device *dev, QueueWork work, void *state,
                const char *const *names, char *err)
{
    memset(q, 0, sizeof *q);
    q->dev = dev;
    q->work = work;
    q->names = names;
    q->state = state;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    if (pthread_create(&q->thread, NULL, queue_thread, q) != 0)
        return error_set(err, "cannot start the communication thread");
    return 0;
}

void queue_stop(CommQueue *q)
{
    pthread_mutex_lock(&q->mu);
    q->stop = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->thread, NULL);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

#line 1536 "chapters/06-production.nw"
long queue_post(CommQueue *q, int kind, int item)
{
    pthread_mutex_lock(&q->mu);
    while (q->posted - q->done >= QUEUE_SLOTS)
        pthread_cond_wait(&q->cv, &q->mu);
    long seq = q->posted++;
    q->kind[seq % QUEUE_SLOTS] = kind, q->item[seq % QUEUE_SLOTS] = item;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return seq;
}

#line 1550 "chapters/06-production.nw"
int queue_wait(CommQueue *q, long seq, char *err)
{
    double t0 = now_seconds();
    pthread_mutex_lock(&q->mu);
    bool waits = seq >= 0 && q->done <= seq && !q->failed; /* its slot is still its own */
    int slot = waits ? (int)(seq % QUEUE_SLOTS) : 0, kind = q->kind[slot], item = q->item[slot];
    while (q->done <= seq && !q->failed)
        pthread_cond_wait(&q->cv, &q->mu);
    bool failed = q->failed;
    pthread_mutex_unlock(&q->mu);
    double t1 = now_seconds();
    q->exposed += t1 - t0;
    if (waits)
        trace_span(LANE_WAIT, t0, t1, "wait for %s %d", q->names[kind], item);
    return failed ? error_set(err, "%s", q->err) : 0;
}

int queue_drain(CommQueue *q, char *err)
{
    pthread_mutex_lock(&q->mu);
    long last = q->posted - 1;
    pthread_mutex_unlock(&q->mu);
    return queue_wait(q, last, err);
}
