/**
 * @file option_table.h
 * @brief The option table's rows, shared by the parser's files (appendix A); not for
 *        programs, which see options.h.
 */
#ifndef DPS_OPTION_TABLE_H
#define DPS_OPTION_TABLE_H

#include <stddef.h>

#include "options.h"

/** The kinds of value an option takes. */
typedef enum {
    ARG_INT,
    ARG_LONG,
    ARG_U64,
    ARG_FLOAT,
    ARG_STRING,
    ARG_CHOICE,
    ARG_WIDTHS,
    ARG_FLAG,
    ARG_BYTES
} ArgKind;

/** One row of the option table. */
typedef struct OptionSpec {
    const char *name;    /**< without the leading -- */
    unsigned bit;        /**< its OptionBit */
    ArgKind kind;        /**< what its value is */
    size_t offset;       /**< of its field in Options */
    double min;          /**< smallest number accepted */
    double max;          /**< largest number accepted */
    const char *choices; /**< for ARG_CHOICE: "a|b|c" */
    const char *metavar; /**< the value's name in the usage text */
    const char *help;    /**< one line of usage text */
    char short_name;     /**< a one-letter alias (-b), or 0 */
} OptionSpec;

/** The table, in the order of the usage text. */
extern const OptionSpec option_specs[];
/** Rows in the table. */
extern const size_t option_count;
/** The choices of an ARG_CHOICE option: its row's, or those handed in ("" if none). */
const char *option_choices(const OptionSpec *s);
/** Read @p v as row @p s says, into its field of @p o. 0, or -1 with @p err. */
int option_store(const OptionSpec *s, const char *v, Options *o, char *err);

#endif
