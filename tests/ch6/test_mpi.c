/* The MPI transport: mpirun -np N ./ring --transport mpi trains as ./mlp with N times the
 * batch, over Open MPI's shared memory and over TCP; a --n_gpus that disagrees with -np is
 * refused. Skipped (with a message) in a build without MPI. */
#include <math.h>

#include "comm_mpi.h"
#include "helpers.h"

static void need_mpi(void)
{
    if (!comm_mpi_available() || system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("no MPI in this build (NO_MPI=1 or mpicc/mpirun not found)");
    mpirun_may_oversubscribe();
}

/* mpirun -np n [extra...] ./ring --transport mpi, against ./mlp with batch n x 64. */
static void trains_like_mlp(const char *n, const char *batch, char *const *mca)
{
    static Run a, b;
    char *argv[24] = {"/usr/bin/env", "mpirun", "-np", (char *)n};
    int k = 4;
    for (int i = 0; mca && mca[i]; i++)
        argv[k++] = mca[i];
    /* a fifth of the default training set: the same comparison, five times sooner */
    char *rest[] = {"./ring", "--transport", "mpi", "--epochs", "2", "--train_size", "4096",
                    "--quiet", "--device", "cpu", NULL};
    for (int i = 0; rest[i]; i++)
        argv[k++] = rest[i];
    argv[k] = NULL;
    char *mlp[] = {"./mlp", "--batch_size", (char *)batch, "--epochs", "2", "--train_size",
                   "4096", "--quiet", "--device", "cpu", NULL};
    run_program(argv, &a);
    run_program(mlp, &b);
    cr_assert(a.status == 0, "mpirun -np %s ./ring --transport mpi: exit %d: %s", n, a.status,
              a.err);
    double la = final_loss(a.out), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-3, "-np %s: ring over MPI %g, mlp with batch %s %g", n, la,
              batch, lb);
}

Test(mpi, two_and_three_ranks_train_like_mlp, .timeout = 120)
{
    need_mpi();
    trains_like_mlp("2", "128", NULL);
    trains_like_mlp("3", "192", NULL);
}

Test(mpi, the_tcp_path_trains_like_mlp, .timeout = 120)
{
    need_mpi();
    /* over loopback: Open MPI leaves lo out by default, and a machine may have nothing else */
    char *tcp[] = {"--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo", NULL};
    trains_like_mlp("2", "128", tcp);
}

Test(mpi, n_gpus_that_disagrees_with_np_is_refused, .timeout = 60)
{
    need_mpi();
    static Run r;
    char *argv[] = {"/usr/bin/env", "mpirun", "-np", "2", "./ring", "--transport", "mpi",
                    "--n_gpus", "3", "--device", "cpu", NULL};
    run_program(argv, &r);
    cr_assert(r.status == 2 && strstr(r.err, "ring: --n_gpus 3, but mpirun started 2 "
              "process(es)"), "exit %d: %s", r.status, r.err);
    cr_assert(r.out[0] == '\0', "nothing may train: %s", r.out);
}

/* Without mpirun, --transport mpi is a world of one process (MPI's singleton), so --n_gpus 3
 * is refused; in a build without MPI, which differs only in its backend (chapter 6), the
 * transport itself is refused, saying what to install. One line either way, nothing run. */
Test(mpi, without_mpirun_the_transport_is_one_process_or_refused, .timeout = 60)
{
    static Run r;
    char *argv[] = {"./train", "--transport", "mpi", "--n_gpus", "3",
                    "--epochs",  "1",          "--device", "cpu", NULL};
    bool mpi = comm_mpi_available();
    if (mpi && system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("MPI's library is here but not mpirun, which starts a singleton's daemon");
    run_program(argv, &r);
    const char *want = mpi ? "train: --n_gpus 3, but mpirun started 1 process(es)"
                           : "train: --transport mpi: this build has no MPI (install "
                             "libopenmpi-dev openmpi-bin and rebuild, without NO_MPI=1)";
    cr_assert(r.status == 2 && count_lines(r.err) == 1 && strstr(r.err, want),
              "exit %d (want 2 and \"%s\"): %s", r.status, want, r.err);
    cr_assert(r.out[0] == '\0', "nothing may train: %s", r.out);
}

/* MPI's own all-reduce and our ring over MPI, checked on every element. */
Test(mpi, collectives_runs_mpi_allreduce_and_our_ring_over_mpi, .timeout = 120)
{
    need_mpi();
    const char *ops[] = {"native_all_reduce", "all_reduce"};
    for (int i = 0; i < 2; i++) {
        static Run r;
        char *argv[] = {"/usr/bin/env", "mpirun", "-np", "3", "./collectives", "--transport",
                        "mpi", "--op", (char *)ops[i], "-b", "0", "-e", "1M", "-f", "4", "-n",
                        "3", "-w", "1", NULL};
        run_program(argv, &r);
        cr_assert(r.status == 0, "%s: exit %d: %s", ops[i], r.status, r.err);
        size_t last = 0;
        cr_assert(table_rows(r.out, &last) == 11 && last == 1u << 20, "%s: %s", ops[i], r.out);
        cr_assert(strstr(r.out, "on 3 ranks over MPI"), "%s", r.out);
    }
}

Test(mpi, native_all_reduce_needs_a_transport_that_has_one)
{
    static Run r;
    char *argv[] = {"./collectives", "--op", "native_all_reduce", NULL};
    run_program(argv, &r);
    cr_assert(r.status == 2 && count_lines(r.err) == 1 &&
              strstr(r.err, "has no all-reduce of its own"), "exit %d: %s", r.status, r.err);
}

Test(mpi, mpi_allreduce_as_a_strategy_trains_like_mlp, .timeout = 120)
{
    need_mpi();
    static Run a, b;
    char *argv[] = {"/usr/bin/env", "mpirun", "-np", "3", "./train", "--strategy", "mpi",
                    "--epochs", "2", "--train_size", "4096", "--quiet", "--device", "cpu",
                    NULL};
    char *mlp[] = {"./mlp", "--batch_size", "192", "--epochs", "2", "--train_size", "4096",
                   "--quiet", "--device", "cpu", NULL};
    run_program(argv, &a);
    run_program(mlp, &b);
    cr_assert(a.status == 0, "mpirun -np 3 ./train --strategy mpi: exit %d: %s", a.status,
              a.err);
    double la = final_loss(a.out), lb = final_loss(b.out);
    cr_assert(fabs(la - lb) < 1e-3, "MPI_Allreduce %g, mlp with batch 192 %g", la, lb);
}
