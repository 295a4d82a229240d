/**
 * @file option_values.c
 * @brief Reading an option's value by its kind: numbers, sizes, seeds, widths, names.
 */
#line 1384 "chapters/A1-support.nw"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "option_table.h"

#line 1352 "chapters/A1-support.nw"
static int parse_number(const OptionSpec *s, const char *v, double *out, char *err)
{
    char *end = NULL;
    errno = 0;
    double x;
#line 1412 "chapters/A1-support.nw"
    if (s->kind == ARG_FLOAT) {
        x = strtod(v, &end);
    } else {
        if (strchr(v, '-') && s->kind == ARG_U64)
            return error_set(err, "--%s: expected a non-negative integer, got '%s'", s->name,
                             v);
        long long n = strtoll(v, &end, 10);
        x = (double)n;
    }
#line 1358 "chapters/A1-support.nw"
    if (end == v || *end != '\0' || *v == '\0' || (*v == ' ' || *v == '\t'))
        return error_set(err, "--%s: expected %s, got '%s'", s->name,
                         s->kind == ARG_FLOAT ? "a number" : "an integer", v);
    if (errno == ERANGE || !isfinite(x))
        return error_set(err, "--%s: '%s' is out of range", s->name, v);
    if (s->kind != ARG_U64 && (x < s->min || x > s->max)) {
        if (s->kind == ARG_FLOAT)
            return error_set(err, "--%s: expected a number in [%g, %g], got '%s'", s->name,
                             s->min, s->max, v);
        return error_set(err, "--%s: expected an integer in [%.0f, %.0f], got '%s'", s->name,
                         s->min, s->max, v);
    }
    *out = x;
    return 0;
}
#line 1451 "chapters/A1-support.nw"
/** The multiple a size's suffix (K, M or G, either case) stands for, stepping past it. */
static unsigned long long binary_unit(char **end)
{
    const char *units = "kmg";
    const char *u = **end ? strchr(units, tolower((unsigned char)**end)) : NULL;
    if (!u)
        return 1; /* no suffix, or a wrong one, which the caller refuses */
    (*end)++;
    return 1ull << (10 * (u - units + 1));
}

#line 1466 "chapters/A1-support.nw"
static int parse_bytes(const OptionSpec *s, const char *v, size_t *out, char *err)
{
    char *end = NULL;
    errno = 0;
    if (*v < '0' || *v > '9')
        return error_set(err, "--%s: expected a size like 8, 4K or 256M, got '%s'", s->name, v);
#line 1473 "chapters/A1-support.nw"
    unsigned long long n = strtoull(v, &end, 10);
    unsigned long long unit = binary_unit(&end);
    if (*end != '\0')
        return error_set(err, "--%s: expected a size like 8, 4K or 256M, got '%s'", s->name, v);
#line 1478 "chapters/A1-support.nw"
    if (errno == ERANGE || n > (unsigned long long)s->max / unit)
        return error_set(err, "--%s: '%s' is larger than %.0f bytes", s->name, v, s->max);
    *out = (size_t)(n * unit);
    return 0;
}

#line 1496 "chapters/A1-support.nw"
static int parse_u64(const OptionSpec *s, const char *v, uint64_t *out, char *err)
{
    char *end = NULL;
    errno = 0;
    if (*v < '0' || *v > '9')
        return error_set(err, "--%s: expected a non-negative integer, got '%s'", s->name, v);
#line 1503 "chapters/A1-support.nw"
    unsigned long long n = strtoull(v, &end, 10);
    if (*end != '\0')
        return error_set(err, "--%s: expected a non-negative integer, got '%s'", s->name, v);
#line 1507 "chapters/A1-support.nw"
    if (errno == ERANGE)
        return error_set(err, "--%s: '%s' is out of range (at most 2^64-1)", s->name, v);
    *out = (uint64_t)n;
    return 0;
}

#line 1525 "chapters/A1-support.nw"
static int parse_widths(const OptionSpec *s, const char *v, Options *o, char *err)
{
    int n = 0;
    const char *p = v;
    if (*v == '\0')
        return error_set(err, "--%s: expected widths like 128 or 256,128, got ''", s->name);
#line 1532 "chapters/A1-support.nw"
    if (strcmp(v, "0") == 0) { /* no hidden layer: softmax regression */
        o->n_hidden = 0;
        return 0;
    }
    while (*p) {
#line 1559 "chapters/A1-support.nw"
        char item[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item)
            return error_set(err, "--%s: expected widths like 128 or 256,128, got '%s'",
                             s->name, v);
        if (n == MAX_HIDDEN)
            return error_set(err, "--%s: at most %d hidden layers, got '%s'", s->name,
                             MAX_HIDDEN, v);
        memcpy(item, p, len);
        item[len] = '\0';
        double x;
        if (parse_number(
                &(OptionSpec){.name = s->name, .kind = ARG_INT, .min = s->min, .max = s->max},
                item, &x, err))
            return -1;
        o->hidden[n++] = (int)x;
        p += len;
        if (*p == ',' && *++p == '\0')
            return error_set(err, "--%s: expected widths like 128 or 256,128, got '%s'",
                             s->name, v);
#line 1538 "chapters/A1-support.nw"
    }
    o->n_hidden = n;
    return 0;
}
#line 1592 "chapters/A1-support.nw"
int option_store(const OptionSpec *s, const char *v, Options *o, char *err)
{
    char *field = (char *)o + s->offset;
    double x = 0;
    switch (s->kind) {
#line 1620 "chapters/A1-support.nw"
    /* numbers, checked against their ranges */
    case ARG_INT:
        if (parse_number(s, v, &x, err))
            return -1;
        *(int *)field = (int)x;
        return 0;
    case ARG_LONG:
        if (parse_number(s, v, &x, err))
            return -1;
        *(long *)field = (long)x;
        return 0;
    case ARG_FLOAT:
        if (parse_number(s, v, &x, err))
            return -1;
        *(float *)field = (float)x;
        return 0;
    case ARG_U64: return parse_u64(s, v, (uint64_t *)field, err);
    case ARG_WIDTHS: return parse_widths(s, v, o, err);
    case ARG_BYTES: return parse_bytes(s, v, (size_t *)field, err);
#line 1656 "chapters/A1-support.nw"
    /* names: one of a list, any, or none */
    case ARG_CHOICE: {
        size_t len = strlen(v);
        const char *c = option_choices(s);
        while (c && *c) {
            size_t n = strcspn(c, "|");
            if (n == len && strncmp(c, v, n) == 0) {
                *(const char **)field = v;
                return 0;
            }
            c += n + (c[n] == '|');
        }
        return error_set(err, "--%s: expected one of %s, got '%s'", s->name, option_choices(s),
                         v);
    }
    case ARG_STRING:
        if (*v == '\0')
            return error_set(err, "--%s: expected %s, got an empty string", s->name,
                             s->metavar);
        *(const char **)field = v;
        return 0;
    case ARG_FLAG: *(bool *)field = true; return 0;
#line 1599 "chapters/A1-support.nw"
    }
    return error_set(err, "--%s: internal error: unknown kind", s->name);
}
