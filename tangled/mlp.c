#line 2190 "chapters/01-mlp.nw"
/**
 * @file mlp.c
 * @brief The program mlp: one device trains an MLP (chapter 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "checkpoint.h"
#include "data.h"
#include "device.h"
#include "model.h"
#include "options.h"
#include "report.h"
#include "train.h"
#include "util.h"

static const char *summary = "Train an MLP on one device, the CPU or a CUDA GPU.";
static const char *examples =
    "  ./mlp --epochs 3                        train on the synthetic set\n"
    "  ./mlp --hidden 256,128 --lr 0.1         two hidden layers\n"
    "  ./mlp --data data/mnist --epochs 10     MNIST (the four IDX files in data/mnist)\n"
    "  ./mlp --device cpu --log mlp.csv        the CPU, with a CSV row per epoch\n"
    "  ./mlp --checkpoint mlp.ckpt --resume    go on from the last finished epoch\n";

/** Parse, load, build, train, report. */
int main(int argc, char **argv)
{
    set_program_name(argv[0]);
    char err[ERR_LEN], note[ERR_LEN];
    Options o;
    options_defaults(&o);
    if (options_parse(&o, argc, argv, OPTS_TRAIN, err)) {
        fprintf(stderr, "%s: %s\n", program_name(), err);
        return EXIT_USAGE;
    }
    if (o.help) {
        options_usage(stdout, summary, OPTS_TRAIN, examples);
        return 0;
    }
    
#line 2260 "chapters/01-mlp.nw"
FILE *log = NULL;
Dataset train, test;
Checkpoint resume;
if (train_prepare(&o, 1, "", &train, &test, &log, &resume))
    return EXIT_USAGE;
#line 2232 "chapters/01-mlp.nw"
    const Device *dev = device_open(o.device, 0, note, err);
    if (!dev)
        fatal("%s", err);
    Model m;
    if (model_init(&m, dev, train.features, o.hidden, o.n_hidden, train.classes, o.batch_size,
                   o.seed, err))
        fatal("%s", err);
    
#line 2391 "chapters/01-mlp.nw"
if (!o.quiet) {
    char shape[128], n1[32], n2[32], n3[32];
    model_describe(&m, shape, sizeof shape);
    long steps = train_steps_per_epoch(train.n, o.batch_size, 1);
    printf("%s: one device trains an MLP\n", program_name());
    printf("  device   %s: %s\n", note, dev->description);
    printf("  model    %s, %s parameters (%.1f KiB), ReLU, softmax cross-entropy\n", shape,
           format_count(n1, (long long)m.n_params), m.n_params * 4.0 / 1024);
    printf("  data     %s: %s train, %s test, %dx%d, %d classes\n", train.source,
           format_count(n2, train.n), format_count(n3, test.n), train.rows, train.cols,
           train.classes);
    printf("  training %d epochs, batch %d, lr %g, %ld steps/epoch", o.epochs, o.batch_size,
           o.lr, steps);
    if (train.n % o.batch_size)
        printf(" (last %ld samples dropped)", train.n - steps * o.batch_size);
    printf("\n");
}
#line 2240 "chapters/01-mlp.nw"
    TrainConfig cfg = {o.batch_size, o.epochs, o.lr, o.seed, o.quiet, stdout, log,
                       o.checkpoint, o.resume ? &resume : NULL};
    TrainResult res;
    if (train_run(&cfg, &m, &train, &test, NULL, &res, err))
        fatal("%s", err);
    
#line 2411 "chapters/01-mlp.nw"
train_report_end(stdout, &res, o.quiet);
#line 2246 "chapters/01-mlp.nw"
    model_free(&m);
    checkpoint_free(&resume);
    data_free(&train);
    data_free(&test);
    if (log && fclose(log) != 0)
        fatal("--log %s: %s", o.log, strerror(errno));
    return 0;
}
