/* ./pingpong: its table, and its answers to bad input. */
#include "helpers.h"
#include "options.h"

static const char *device_flag(void) { return test_on_cuda() ? "cuda" : "cpu"; }

/* Rows "size one-way algbw sendrecv algbw #wrong" for 8 B .. 64 KiB, all checked right. */
Test(pingpong, prints_a_checked_table)
{
    static Run r;
    char *argv[] = {"./pingpong", "--n_gpus", "3", "-b", "8", "-e", "64K", "-n", "3", "-w", "1",
                    "--device", (char *)device_flag(), NULL};
    run_program(argv, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    size_t expect = 8;
    int rows = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        size_t size;
        double t1, bw1, t2, bw2;
        long wrong;
        cr_assert(sscanf(line, "%zu %lf %lf %lf %lf %ld", &size, &t1, &bw1, &t2, &bw2, &wrong) ==
                  6, "not a row: '%s'", line);
        cr_assert(size == expect, "row for %zu bytes, expected %zu", size, expect);
        /* the times and bandwidths must parse (sscanf above); their values are measurements */
        cr_assert(wrong == 0, "row: '%s'", line);
        expect *= 2;
        rows++;
    }
    cr_assert(rows == 14, "%d rows", rows);
}

Test(pingpong, reports_the_barrier_and_the_fit)
{
    static Run r;
    char *argv[] = {"./pingpong", "--n_gpus", "4", "-b", "1K", "-e", "1M", "-f", "32", "-n", "2",
                    "--device", (char *)device_flag(), NULL};
    run_program(argv, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "# barrier: 4 ranks,"), "%s", r.out);
    /* two measured points give the fit, or a line that says the run was too noisy for one */
    cr_assert(strstr(r.out, "# alpha-beta fit: T(n) = ") ||
              strstr(r.out, "# alpha-beta fit: unreliable (1048576 B took "), "%s", r.out);
    cr_assert(strstr(r.out, "\n        1024 ") && strstr(r.out, "\n       32768 ") &&
              strstr(r.out, "\n     1048576 "), "sizes x32: %s", r.out);
}

/* One size gives no line to fit, and the program says so. */
Test(pingpong, one_size_has_no_fit_and_says_so)
{
    static Run r;
    char *argv[] = {"./pingpong", "-b", "1K", "-e", "1K", "-n", "2", "-w", "1", "--device",
                    (char *)device_flag(), NULL};
    run_program(argv, &r);
    cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.out, "# alpha-beta fit: none (one size only"), "%s", r.out);
}

/* Each bad command line: one line on stderr naming the problem, exit status 2. */
Test(pingpong, bad_input_is_one_line_and_status_2)
{
    static const struct { const char *a[4]; const char *says; } bad[] = {
        {{"--n_gpus", "1"}, "a ping-pong needs at least 2 ranks"},
        {{"--n_gpus", "65"}, "--n_gpus: expected an integer in [1, 64]"},
        {{"--n_gpus", "0"}, "--n_gpus: expected an integer in [1, 64]"},
        {{"--n_gpus", "two"}, "--n_gpus: expected an integer, got 'two'"},
        {{"-b", "1M", "-e", "1K"}, "-b 1048576 is larger than -e 1024"},
        {{"-e", "5X"}, "--maxbytes: expected a size like 8, 4K or 256M, got '5X'"},
        {{"-e", "-1"}, "--maxbytes: expected a size like 8, 4K or 256M"},
        {{"-e", "5G"}, "--maxbytes: '5G' is larger than"},
        {{"-e", "99999999999999999999999"}, "--maxbytes"},
        {{"-f", "1"}, "--stepfactor: expected an integer in [2, 1024]"},
        {{"-n", "0"}, "--iters: expected an integer in [1, 1000000]"},
        {{"-c", "2"}, "--check: expected an integer in [0, 1]"},
        {{"--timeout", "0"}, "--timeout: expected a number in"},
        {{"--device", "tpu"}, "--device: expected one of auto|cpu|cuda"},
        {{"-z"}, "unknown option '-z' (try --help)"},
        {{"--epochs", "3"}, "unknown option '--epochs'"},
        {{"-n"}, "--iters needs a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static Run r;
        char *argv[8] = {"./pingpong"};
        int n = 1;
        for (int j = 0; j < 4 && bad[i].a[j]; j++)
            argv[n++] = (char *)bad[i].a[j];
        run_program(argv, &r);
        cr_assert(r.status == 2, "%s %s: exit %d, stderr: %s", bad[i].a[0], bad[i].a[1] ? bad[i].a[1] : "",
                  r.status, r.err);
        cr_assert(count_lines(r.err) == 1 && strstr(r.err, bad[i].says),
                  "%s %s: stderr '%s', expected '%s'", bad[i].a[0], bad[i].a[1] ? bad[i].a[1] : "", r.err, bad[i].says);
        cr_assert(r.out[0] == '\0', "printed on stdout: %s", r.out);
    }
}

Test(pingpong, help_lists_the_options)
{
    static Run r;
    char *argv[] = {"./pingpong", "--help", NULL};
    run_program(argv, &r);
    cr_assert(r.status == 0);
    cr_assert(strstr(r.out, "-b, --minbytes SIZE") && strstr(r.out, "--n_gpus N") &&
              strstr(r.out, "--timeout S") && strstr(r.out, "examples:"), "%s", r.out);
}
