/**
 * @file options.c
 * @brief A table-driven parser for the book's command line: defaults, parsing, usage.
 */
#line 968 "chapters/A1-support.nw"
#include "options.h"

#include <stdio.h>
#include <string.h>

#include "option_table.h"

#line 993 "chapters/A1-support.nw"
void options_defaults(Options *o)
{
    memset(o, 0, sizeof *o);
    o->batch_size = 64;
    o->epochs = 5;
    o->lr = 0.05f;
    o->optimizer = "sgd";
    o->momentum = 0.9f;
    o->weight_decay = 0.01f;
    o->accum = 1;
    o->hidden[0] = 128;
    o->n_hidden = 1;
    o->seed = 1;
    o->device = "auto";
    o->data = "synthetic";
    o->train_size = 0;
    o->log = NULL;
#line 1028 "chapters/A1-support.nw"
    o->n_gpus = 2;
    o->timeout = 60;
    o->min_bytes = 8;
    o->max_bytes = 256u << 20;
    o->step_factor = 2;
    o->iters = 20;
    o->warmup = 5;
    o->check = 1;
    o->op = "reduce_scatter";
    o->transport = "shm";
    o->strategy = "direct"; /* chapter 8's choice; the channel ring where there is no window */
    o->bucket_mb = 25;
    o->hosts = 8;
    o->params = 7e9f;
    o->tokens = 4096;
    o->machine = "h100";
    o->from = "book/data";
#line 2008 "chapters/10-compress.nw"
    o->grad_dtype = "fp32";
    o->compress = "none";
    o->loss_scale = 65536;
    o->scale_window = 2000;
#line 1011 "chapters/A1-support.nw"
}
#line 1296 "chapters/A1-support.nw"
/** Choices handed in by options_set_choices(), by the option's bit number. */
static const char *choices_given[32];

void options_set_choices(unsigned bit, const char *choices)
{
    choices_given[__builtin_ctz(bit)] = choices;
}

const char *option_choices(const OptionSpec *s)
{
    const char *c = s->choices ? s->choices : choices_given[__builtin_ctz(s->bit)];
    return c ? c : "";
}

#line 1329 "chapters/A1-support.nw"
float options_lr(const Options *o)
{
    if (!(o->given & OPT_LR) && strcmp(o->optimizer, "adamw") == 0)
        return 1e-3f;
    return o->lr;
}
#line 1707 "chapters/A1-support.nw"
static const OptionSpec *find(const char *name, size_t len, unsigned accepted)
{
    for (size_t i = 0; i < option_count; i++) {
        const OptionSpec *s = &option_specs[i];
        bool named = strlen(s->name) == len && strncmp(s->name, name, len) == 0;
        if ((s->bit & accepted) && (named || (len == 1 && s->short_name == *name)))
            return s;
    }
    return NULL;
}

#line 1727 "chapters/A1-support.nw"
static int unknown(const char *arg, size_t len, unsigned accepted, char *err)
{
    char fixed[64];
    if (len < sizeof fixed) {
        for (size_t i = 0; i < len; i++)
            fixed[i] = arg[i] == '-' ? '_' : arg[i];
        const OptionSpec *s = find(fixed, len, accepted);
        if (s)
            return error_set(err, "unknown option '--%.*s': did you mean --%s?", (int)len, arg,
                             s->name);
#line 1738 "chapters/A1-support.nw"
    }
    return error_set(err, "unknown option '--%.*s' (try --help)", (int)len, arg);
}

#line 1757 "chapters/A1-support.nw"
int options_parse(Options *o, int argc, char **argv, unsigned accepted, char *err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = true;
            continue;
        }
#line 1795 "chapters/A1-support.nw"
        bool one_letter = a[0] == '-' && a[1] && a[1] != '-' && a[2] == '\0';
        if (!one_letter && (strncmp(a, "--", 2) != 0 || a[2] == '\0'))
            return error_set(err,
                             "unexpected argument '%s' (options start with --; try --help)", a);
        const char *name = a + (one_letter ? 1 : 2), *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const OptionSpec *s = find(name, len, accepted);
        if (!s && one_letter)
            return error_set(err, "unknown option '%s' (try --help)", a);
        if (!s)
            return unknown(name, len, accepted, err);
#line 1820 "chapters/A1-support.nw"
        const char *value = NULL;
        if (s->kind == ARG_FLAG) {
            if (eq)
                return error_set(err, "--%s takes no value", s->name);
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return error_set(err, "--%s needs a value (%s)", s->name, s->metavar);
        }
#line 1767 "chapters/A1-support.nw"
        if (option_store(s, value, o, err))
            return -1;
        o->given |= s->bit;
    }
    if ((accepted & OPT_BENCH) && o->min_bytes > o->max_bytes)
        return error_set(err, "-b %zu is larger than -e %zu", o->min_bytes, o->max_bytes);
    return 0;
}
#line 1860 "chapters/A1-support.nw"
/** "one of a|b|c" under an option's help, wrapped before 96 columns at a bar. */
static void print_choices(FILE *f, const char *choices)
{
    int col = fprintf(f, "  %-24s one of ", "");
    for (const char *c = choices; *c;) {
        int n = (int)strcspn(c, "|");
        if (c != choices && col + n > 95)
            col = fprintf(f, "\n  %-24s        ", "") - 1;
        col += fprintf(f, "%.*s%s", n, c, c[n] ? "|" : "");
        c += n + (c[n] != '\0');
    }
    fprintf(f, "\n");
}

#line 1877 "chapters/A1-support.nw"
void options_usage(FILE *f, const char *summary, unsigned accepted, const char *examples)
{
    fprintf(f, "usage: %s [options]\n%s\n\noptions:\n", program_name(), summary);
    for (size_t i = 0; i < option_count; i++) {
        const OptionSpec *s = &option_specs[i];
        if (!(s->bit & accepted))
            continue;
        char left[48];
        snprintf(left, sizeof left, "%s%c%s--%s%s%s", s->short_name ? "-" : "",
                 s->short_name ? s->short_name : ' ', s->short_name ? ", " : "   ", s->name,
                 s->metavar ? " " : "", s->metavar ? s->metavar : "");
#line 1889 "chapters/A1-support.nw"
        fprintf(f, "  %-24s %s\n", left, s->help);
        const char *choices = s->kind == ARG_CHOICE ? option_choices(s) : NULL;
        if (choices && *choices && !strstr(s->help, choices))
            print_choices(f, choices);
    }
    fprintf(f, "  %-24s %s\n", "--help", "this text");
    if (examples)
        fprintf(f, "\nexamples:\n%s", examples);
}
