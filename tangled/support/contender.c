/**
 * @file contender.c
 * @brief Running a benchmark's contenders and reading their tables (chapter 6).
 */
#line 3564 "chapters/06-production.nw"
#include "contender.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "util.h"

#line 1589 "chapters/08-direct.nw"
/** Row @p row of this round: the first round makes it, the others add their time. */
static void contender_row(Contender *col, int row, size_t size, size_t count, double us,
                          double bw, long wrong)
{
    if (col->rounds == 0) {
        col->size[row] = size, col->count[row] = count, col->wrong[row] = wrong;
        col->bw_us[row] = bw * us;
        col->rows = row + 1;
    } else if (row >= col->rows || col->size[row] != size) {
        return; /* a row this contender did not print the first time */
    }
    if (col->rounds < MAX_ROUNDS)
        col->round_us[col->rounds][row] = us;
    col->wrong[row] = wrong > col->wrong[row] ? wrong : col->wrong[row];
}
#line 1610 "chapters/08-direct.nw"
/** The round is over: each row's time is the median of its rounds. */
static void contender_round_end(Contender *col)
{
    if (col->rounds < MAX_ROUNDS)
        col->rounds++;
    for (int i = 0; i < col->rows; i++) {
        double t[MAX_ROUNDS];
        for (int k = 0; k < col->rounds; k++)
            t[k] = col->round_us[k][i];
        col->us[i] = median(t, col->rounds);
        col->busbw[i] = col->us[i] > 0 ? col->bw_us[i] / col->us[i] : col->busbw[i];
    }
}

#line 3593 "chapters/06-production.nw"
void contender_run(Contender *col)
{
#line 3627 "chapters/06-production.nw"
    int fd[2];
    if (pipe(fd) != 0)
        fatal("pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, col->argv[0], &fa, NULL, col->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
#line 3596 "chapters/06-production.nw"
    if (rc != 0) {
        close(fd[0]);
        snprintf(col->why, sizeof col->why, "cannot run %s: %s", col->argv[0], strerror(rc));
#line 3600 "chapters/06-production.nw"
        return;
    }
#line 3651 "chapters/06-production.nw"
    FILE *f = fdopen(fd[0], "r");
    char line[512];
    int row = 0;
    while (f && fgets(line, sizeof line, f)) {
        char type[16], wrong[32];
        size_t size, count;
        double us, algbw, busbw;
        if (line[0] != '#' && row < MAX_ROWS &&
            sscanf(line, "%zu %zu %15s %lf %lf %lf %31s", &size, &count, type, &us, &algbw,
                   &busbw, wrong) == 7)
            contender_row(col, row++, size, count, us, busbw,
                          strcmp(wrong, "N/A") == 0 ? 0 : atol(wrong));
    }
    if (f)
        fclose(f);
    contender_round_end(col);
#line 3603 "chapters/06-production.nw"
    int st;
    waitpid(pid, &st, 0);
    col->ran = true;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        snprintf(col->why, sizeof col->why, "failed (%s %d): see its message above",
                 WIFEXITED(st) ? "exit status" : "signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

#line 3678 "chapters/06-production.nw"
double contender_at(const Contender *col, size_t size, enum ContenderField field)
{
    for (int i = 0; i < col->rows; i++)
        if (col->size[i] == size)
            return field == CONTENDER_US      ? col->us[i]
                   : field == CONTENDER_BUSBW ? col->busbw[i]
                                              : (double)col->wrong[i];
    return NAN;
}
#line 3697 "chapters/06-production.nw"
void machine_line(char *buf, size_t len)
{
    char model[128] = "unknown CPU", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
    struct utsname u;
    uname(&u);
    time_t now = time(NULL);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%d", gmtime(&now));
    snprintf(buf, len, "%s, %ld cores, %s %s, %s", model, sysconf(_SC_NPROCESSORS_ONLN),
             u.sysname, u.release, day);
}
#line 3761 "chapters/06-production.nw"
static void table_heading(FILE *csv, const Contender *col, int n, int base, const int *vs,
                          int n_vs)
{
    printf("# %10s", "size (B)");
    for (int k = 0; k < n; k++)
        printf(" %19s", col[k].title);
    printf(" %7s", "#wrong");
    for (int j = 0; j < n_vs; j++)
        printf(" %6s/", col[base].key);
    printf("\n# %10s", "");
    for (int k = 0; k < n; k++)
        printf(" %9s %9s", "time", col[k].bus ? "busbw" : "bw");
    printf(" %7s", "");
    for (int j = 0; j < n_vs; j++)
        printf(" %7s", col[vs[j]].key);
    printf("\n");
    if (csv) {
        fprintf(csv, "size");
        for (int k = 0; k < n; k++)
            fprintf(csv, ",%s_us,%s_%s", col[k].key, col[k].key, col[k].bus ? "busbw" : "bw");
#line 3782 "chapters/06-production.nw"
        fprintf(csv, ",wrong\n");
    }
}

#line 3795 "chapters/06-production.nw"
/** One line of the table (and of the CSV); 1 when an element was wrong. */
static int table_row(FILE *csv, const Contender *col, int n, int base, const int *vs, int n_vs,
                     size_t size)
{
    double wrong = 0;
    printf("%12zu", size);
    if (csv)
        fprintf(csv, "%zu", size);
#line 3824 "chapters/06-production.nw"
    for (int k = 0; k < n; k++) {
        double t = contender_at(&col[k], size, CONTENDER_US);
        double b = contender_at(&col[k], size, CONTENDER_BUSBW);
        double w = contender_at(&col[k], size, CONTENDER_WRONG);
        if (isnan(t))
            printf(" %9s %9s", "-", "-");
        else
            printf(" %9.1f %9.3f", t, b);
        if (csv)
            fprintf(csv, ",%.3f,%.4f", t, b);
        wrong += isnan(w) ? 0 : w;
    }
#line 3804 "chapters/06-production.nw"
    printf(" %7.0f", wrong);
    double mine = contender_at(&col[base], size, CONTENDER_BUSBW);
    for (int j = 0; j < n_vs; j++)
        printf(" %6.0f%%", 100 * mine / contender_at(&col[vs[j]], size, CONTENDER_BUSBW));
    printf("\n");
    if (csv)
        fprintf(csv, ",%.0f\n", wrong);
    return wrong > 0;
}

#line 3732 "chapters/06-production.nw"
int contender_table(FILE *csv, const Contender *col, int n, int base, const int *vs, int n_vs)
{
#line 3735 "chapters/06-production.nw"
    int status = 0, sizes = base;
    for (int k = 0; k < n && col[sizes].rows == 0; k++)
        sizes = k;
    table_heading(csv, col, n, base, vs, n_vs);
    for (int i = 0; i < col[sizes].rows; i++)
        status |= table_row(csv, col, n, base, vs, n_vs, col[sizes].size[i]);
    for (int k = 0; k < n; k++)
        if (col[k].why[0]) {
            printf("# %s: %s\n", col[k].title, col[k].why);
            status |= col[k].ran;
        }
    return status;
}
