/**
 * @file mlp_main.c
 * @brief The program mlp: one device trains an MLP (chapter 1).
 */
#line 62 "chapters/A3-programs.nw"
#include <stdio.h>
#include <stdlib.h>

#include "device.h"
#include "model.h"
#include "report.h"
#include "run.h"
#include "train.h"
#include "util.h"

#line 89 "chapters/A3-programs.nw"
static const char *summary = "Train an MLP on one device, the CPU or a CUDA GPU.";
static const char *examples =
    "  ./mlp --epochs 3                        train on the synthetic set\n"
    "  ./mlp --hidden 256,128 --lr 0.1         two hidden layers\n"
    "  ./mlp --data data/mnist --epochs 10     MNIST (the four IDX files in data/mnist)\n"
    "  ./mlp --device cpu --log mlp.csv        the CPU, with a CSV row per epoch\n"
    "  ./mlp --checkpoint mlp.ckpt --resume    go on from the last finished epoch\n";

#line 115 "chapters/A3-programs.nw"
/** Parse, load, build, train, report. */
int main(int argc, char **argv)
{
    static Run run;
    char err[ERR_LEN], note[ERR_LEN];
#line 147 "chapters/A3-programs.nw"
    int status = run_parse(&run, argc, argv, OPTS_TRAIN, summary, examples);
    if (status == RUN_GO)
        status = run_prepare_training(&run, 1, "");
    if (status != RUN_GO)
        return status;
#line 121 "chapters/A3-programs.nw"
    const Options *o = &run.o;
#line 168 "chapters/A3-programs.nw"
    const Device *dev = device_open(o->device, 0, note, err);
    if (!dev)
        fatal("%s", err);
    Model m;
    if (run_model(&run, dev, &m, err))
        fatal("%s", err);
#line 191 "chapters/A3-programs.nw"
    if (!o->quiet) {
        char shape[128], n1[32], n2[32], n3[32];
        const Dataset *train = &run.train, *test = &run.test;
        model_describe(&m, shape, sizeof shape);
        long steps = train_steps_per_epoch(train->n, o->batch_size * o->accum, 1);
        printf("%s: one device trains an MLP\n", program_name());
        printf("  device   %s: %s\n", note, dev->description);
        exercises_banner("  exercise ");
        printf("  model    %s, %s parameters (%.1f KiB), ReLU, softmax cross-entropy\n", shape,
               format_count(n1, (long long)m.n_params), m.n_params * 4.0 / 1024);
#line 202 "chapters/A3-programs.nw"
        printf("  data     %s: %s train, %s test, %dx%d, %d classes\n", train->source,
               format_count(n2, train->n), format_count(n3, test->n), train->rows, train->cols,
               train->classes);
#line 206 "chapters/A3-programs.nw"
        state_banner(o, NULL, m.n_params);
        printf("  training %d epochs, batch %d, %s, lr %g, %ld steps/epoch", o->epochs,
               o->batch_size * o->accum, o->optimizer, options_lr(o), steps);
        if (train->n % (o->batch_size * o->accum))
            printf(" (last %ld samples dropped)", train->n - steps * o->batch_size * o->accum);
        if (o->accum > 1)
            printf(" (%d micro-batches of %d)", o->accum, o->batch_size);
        printf("\n");
    }
#line 124 "chapters/A3-programs.nw"
    TrainConfig cfg = run_train_config(&run, true);
    TrainResult res;
    if (train_run(&cfg, &m, &run.train, &run.test, NULL, &res, err))
        fatal("%s", err);
#line 230 "chapters/A3-programs.nw"
    train_report_end(stdout, &res, o->quiet);
#line 129 "chapters/A3-programs.nw"
    model_free(&m);
    if (device_close(dev, err))
        fatal("%s", err);
    return run_finish(&run);
}
