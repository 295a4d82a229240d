/* The harness of the tests of exercise 11.2, public and hidden: a grid of D rows of T ranks
 * (chapter 9's grid.h, with T columns), each rank calling grid_gradient_step on gradients of
 * small integers, and checking its gradient and the norm bit for bit against what every
 * rank's data make, computed here for every place of the row, and the ranks and bytes it
 * sent to. */
#ifndef DPS_TEST_GRID_STEP_H
#define DPS_TEST_GRID_STEP_H

#include <math.h>

#include "ch11.h"
#include "ch9/grid.h"

/* One call's layout: count floats, a bias of n_bias at `bias` (the row's first rank's), the
 * last `shared` floats the same on every rank of a row; max_norm (0: no clip) as a multiple
 * of the norm (`relative`) or as is. */
typedef struct StepCase {
    size_t count, bias, n_bias, shared;
    double max_norm;
    bool relative;
} StepCase;

/* A run: the grid, its cases, and the size of the values (1: integers of -8..8). */
typedef struct StepJob {
    Grid grid;
    const StepCase *cases;
    int n_cases;
    float scale;
} StepJob;

static StepJob step_job;

/* Rank q's gradient at i in call k: a small integer times the job's scale; in the shared
 * floats, the same for every rank of q's row. */
static inline float step_value(int q, size_t i, int k, const StepCase *s, int T)
{
    int who = i >= s->count - s->shared ? q / T * T : q;
    long v = ((long)who * 31 + (long)i * 7 + (long)k * 13) % 17 - 8;
    return (float)v * step_job.scale;
}

/* The gradient of the ranks at place t after the column's average (want, count floats). */
static inline void step_average(int t, int k, const StepCase *s, float *want)
{
    int T = step_job.grid.cols, D = step_job.grid.rows;
    for (size_t i = 0; i < s->count; i++) {
        double sum = 0; /* exact: small integers times a power of two */
        for (int d = 0; d < D; d++)
            sum += step_value(d * T + t, i, k, s, T);
        bool dropped = t != 0 && i >= s->bias && i < s->bias + s->n_bias;
        want[i] = dropped ? 0.0f : (float)sum * (1.0f / (float)D);
    }
}

/* What rank r must end with: its gradient (want) and the norm. */
static inline double step_expected(int r, int k, const StepCase *s, float *want, float *tmp)
{
    int T = step_job.grid.cols;
    double total = 0;
    for (int t = 0; t < T; t++) {
        step_average(t, k, s, tmp);
        double own = 0;
        for (size_t i = 0; i < (t == 0 ? s->count : s->count - s->shared); i++)
            own += (double)tmp[i] * (double)tmp[i];
        total += own;
    }
    double norm = sqrt(total);
    step_average(r % T, k, s, want);
    double max_norm = s->relative ? s->max_norm * norm : s->max_norm;
    if (max_norm > 0 && norm > max_norm) {
        float f = (float)(max_norm / (norm + 1e-6));
        for (size_t i = 0; i < s->count; i++)
            want[i] *= f;
    }
    return norm;
}

static int step_body(Comm *c, const Watched *w, float *buf, float *scratch, char *err)
{
    const StepJob *job = &step_job;
    Grid g = job->grid;
    int rank = c->rank, T = g.cols, D = g.rows;
    unsigned long long row = grid_row_mask(g, rank), col = grid_col_mask(g, rank);
    size_t most = 0;
    for (int k = 0; k < job->n_cases; k++)
        most = job->cases[k].count > most ? job->cases[k].count : most;
    float *want = xcalloc(most + 1, 4), *tmp = xcalloc(most + 1, 4);
    int rc = 0;
    for (int k = 0; k < job->n_cases && rc == 0; k++) {
        const StepCase *s = &job->cases[k];
        for (size_t i = 0; i < s->count; i++)
            buf[i] = step_value(rank, i, k, s, T);
        double norm = step_expected(rank, k, s, want, tmp), got = -1;
        double max_norm = s->relative ? s->max_norm * norm : s->max_norm;
        size_t along = grid_bytes_to(w, row), down = grid_bytes_to(w, col);
        if (grid_gradient_step(c, T, buf, s->count, s->bias, s->n_bias, s->shared, max_norm,
                               scratch, &got, err)) {
            rc = -1;
            break;
        }
        along = grid_bytes_to(w, row) - along, down = grid_bytes_to(w, col) - down;
        size_t row_most = (size_t)(T - 1) * sizeof(double);
        size_t col_most = 2 * (size_t)(D - 1) * chunk_max(s->count, D) * sizeof(float);
        char at[200];
        snprintf(at, sizeof at,
                 "%d x %d grid (D x T), count %zu, bias [%zu, %zu), %zu shared, max_norm %g: "
                 "rank %d (row %d, place %d)",
                 D, T, s->count, s->bias, s->bias + s->n_bias, s->shared, max_norm, rank,
                 rank / T, rank % T);
        if (memcmp(&got, &norm, sizeof norm) != 0)
            rc = error_set(err,
                           "%s: norm %.17g, expected %.17g (each rank's squares in double, "
                           "the shared floats at place 0 only, the row's sums in place order)",
                           at, got, norm);
        for (size_t i = 0; rc == 0 && i < s->count; i++)
            if (memcmp(&buf[i], &want[i], sizeof want[i]) != 0)
                rc = error_set(err,
                               "%s: grad[%zu] is %.9g, expected %.9g (the column's ring "
                               "average%s%s)",
                               at, i, (double)buf[i], (double)want[i],
                               i >= s->bias && i < s->bias + s->n_bias ? ", in the bias" : "",
                               max_norm > 0 && norm > max_norm ? ", clipped" : "");
        if (rc == 0 && (along > row_most || down > col_most))
            rc = error_set(err,
                           "%s: sent %zu bytes along its row and %zu down its column; at most "
                           "%zu (T - 1 doubles) and %zu (the column's ring)",
                           at, along, down, row_most, col_most);
    }
    char to[200], may[200];
    if (rc == 0 && (w->to & ~(row | col)))
        rc = error_set(err,
                       "%d x %d grid: rank %d sent to ranks %s; only the ranks next to it in "
                       "its row and its column (%s) may get a message",
                       D, T, rank, grid_ranks(w->to, to, sizeof to),
                       grid_ranks(row | col, may, sizeof may));
    free(want), free(tmp);
    return rc;
}

/* Run the cases on a grid of D rows of T ranks. */
static inline void step_run(int D, int T, const StepCase *cases, int n_cases, float scale)
{
    step_job = (StepJob){{D, T}, cases, n_cases, scale};
    size_t most = 0;
    for (int k = 0; k < n_cases; k++)
        most = cases[k].count > most ? cases[k].count : most;
    grid_run(D * T, 0, step_body, most, 60);
}

#endif
