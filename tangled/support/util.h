/**
 * @file util.h
 * @brief Error reporting, allocation and the clock: helpers every file uses.
 */
#ifndef DPS_UTIL_H
#define DPS_UTIL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of the buffers that carry an error message back to a caller. */
#define ERR_LEN 512
/** Exit status for a bad command line or bad input: the user can fix it. */
#define EXIT_USAGE 2
/** Exit status for a failure at run time. */
#define EXIT_RUNTIME 1

/** Remember the program's name (the last component of @p argv0) for messages. */
void set_program_name(const char *argv0);
/** The name given to set_program_name(), or "dps". */
const char *program_name(void);
/** Print "program: message" on stderr and exit with EXIT_RUNTIME. */
__attribute__((noreturn, format(printf, 1, 2))) void fatal(const char *fmt, ...);
/** Format a message into @p err (ERR_LEN bytes) and return -1, for `return error_set(...)`. */
__attribute__((format(printf, 2, 3))) int error_set(char *err, const char *fmt, ...);
/** calloc() that calls fatal() when memory runs out; never returns NULL. */
void *xcalloc(size_t count, size_t size);
/** Seconds on a monotonic clock, for measuring intervals. */
double now_seconds(void);
/** The cores this process may run on: its CPU affinity (taskset, a cpuset), at least 1. */
int cores_available(void);
/**
 * Read the regular file at @p path whole into *buf (allocated, one zero byte past the end)
 * and its length into *len. Returns 0, or -1 with "PATH: why" in @p err.
 */
int read_file(const char *path, unsigned char **buf, size_t *len, char *err);
/**
 * The exercises linked in place of the book's functions, "ch4/ring_reduce_scatter_bidir in
 * place of ring_reduce_scatter", or NULL. The book's definition is weak and says none; the
 * build of `make EXERCISES=1` links a stronger one that names the student's.
 */
const char *exercises_linked(void);
/** Print @p prefix and exercises_linked() as a banner line on stdout, if any are linked. */
void exercises_banner(const char *prefix);

#ifdef __cplusplus
}
#endif
#endif
