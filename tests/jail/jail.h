/* The autograder's jail: a student's exercise runs in a process of its own, as an
 * unprivileged user, and the test that judges it runs in another.
 *
 * In the autograder (tests/grade.sh with GRADE_JAIL=1), a test binary is built from the
 * test file, the book's library and tests/jail/exercises.c's proxies, never from the
 * student's file. When a test calls an exercise's function, the proxy (the "judge" side)
 * starts a host (tests/jail/host.c) once per process: fork, drop to the unprivileged user,
 * exec the host, which only then loads the student's file, compiled by that user into a
 * shared object, with dlopen. The proxy sends the host the call's inputs; the host runs the
 * student's function on copies of them and sends back its outputs (the buffers the function
 * may write, its result) and nothing else; the test compares them with what it expects.
 * A communicator passed to the exercise becomes, in the host, one whose every operation is
 * a request to the judge, which carries it out on the test's own communicator: the test
 * sees, and counts, every message the student's code sends.
 *
 * So the student's code never runs in the process that decides, cannot read the tests
 * (their binaries and sources are the grader's, mode 0700) nor the values they expect (in
 * the judge's memory only), and cannot write the results.
 *
 * A message is a Frame, then len bytes. Both sides are one program's two halves and trust
 * nothing of the other beyond the frame: the judge checks every length it is sent. */
#ifndef DPS_JAIL_H
#define DPS_JAIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "comm.h"
#include "device.h"
#include "model.h"

/* The largest message either side accepts, and so the largest buffer an exercise may pass
 * through the jail or send to a peer. */
#define JAIL_MAX_BYTES ((uint64_t)1 << 30)
/* The host's descriptor of its end of the socket. */
#define JAIL_FD 3

typedef enum JailOp {
    JAIL_CALL = 1, /* judge -> host: run exercise id (a uint32) on the inputs that follow */
    JAIL_RESULT,   /* host -> judge: the outputs of that call */
    JAIL_SEND,     /* host -> judge: a communicator's operation, carried out by the judge */
    JAIL_RECV,
    JAIL_SENDRECV,
    JAIL_SENDRECV2,
    JAIL_BARRIER,
    JAIL_ALLREDUCE,
    JAIL_REPLY,   /* judge -> host: an operation's result: int rc, char err[ERR_LEN], data */
    JAIL_MISSING, /* host -> judge: the student's file does not define the function */
    JAIL_PEER_BUFFER, /* host -> judge: chapter 8's operations, on the shared memory file */
    JAIL_ALLOC_SHARED,
    JAIL_PROGRESS,
    JAIL_ADVANCE,
    JAIL_WAIT_FOR,
    JAIL_KERNEL, /* host -> judge: one of the model's device's kernels (a KernelCall) */
    JAIL_FAST,   /* host -> judge: an operation of exercise 1.1's machine (a FastCall) */
} JailOp;

typedef struct Frame {
    uint32_t op;
    uint32_t zero;
    uint64_t len;
} Frame;

/* One message being built (put) or read (take). */
typedef struct Msg {
    unsigned char *data;
    size_t len, cap, pos;
    int bad; /* a take ran past the end */
} Msg;

void msg_put(Msg *m, const void *p, size_t n);
void *msg_room(Msg *m, size_t n); /* n bytes at the end, to fill */
int msg_take(Msg *m, void *p, size_t n);
const void *msg_view(Msg *m, size_t n); /* the next n bytes, or NULL past the end */
void msg_free(Msg *m);
/* Write frame op with m's bytes; read one, into *m (its length checked). 0, or -1. */
int msg_send(int fd, uint32_t op, const Msg *m);
int msg_recv(int fd, uint32_t *op, Msg *m);
/* The same, with up to JAIL_MAX_FDS descriptors passed along (SCM_RIGHTS). */
#define JAIL_MAX_FDS 4
int msg_send_fds(int fd, uint32_t op, const Msg *m, const int *fds, int n);
int msg_recv_fds(int fd, uint32_t *op, Msg *m, int *fds, int *n);

/* The four passes of an exercise's argument list: the judge puts the call, the host takes
 * it; the host puts the outputs, the judge takes them back. */
typedef enum WirePass { CALL_PUT, CALL_TAKE, BACK_PUT, BACK_TAKE } WirePass;

typedef struct Wire {
    WirePass pass;
    Msg *m;
    const Device *dev; /* judge: where the next buffers lie (NULL: the host's memory) */
    Comm *comm;        /* judge: the test's communicator of this call */
    void *held[80];    /* host: the buffers it allocated (or mapped) for this call */
    size_t held_bytes[80];
    int n_held;
    int fds[JAIL_MAX_FDS]; /* the memory files of the shared buffers: sent, or received */
    int n_fds;
    unsigned long file_dev, file_ino; /* judge: the first such file (device, inode) */
    unsigned char copied[8]; /* host: which shared buffers came as copies instead */
    int n_shared;            /* host: shared buffers met so far in this pass */
    int owned_fd;            /* judge: a file made for this call, closed once sent */
    unsigned char *arena;    /* the model's file, as mapped here */
    size_t arena_bytes;
    const Device *model_dev; /* judge: the test's device of the model */
    struct Fast *fast;       /* judge: the test's machine of exercise 1.1 */
} Wire;

/* A value passed in (put on the call, taken by the host). */
void wire_in(Wire *w, void *p, size_t n);
/* The function's result (put by the host, taken back). */
void wire_result(Wire *w, void *p, size_t n);
/* A buffer of bytes at *pp (NULL passes as NULL): its contents go to the host, which runs
 * the function on a copy of its own, ending at a page it may not touch. With WIRE_BACK the
 * copy's contents come back into *pp; with WIRE_HOST *pp is in the test's memory, not on the
 * device of the arguments before it; with WIRE_TEXT (a message, in the test's memory) the
 * judge ends what comes back with a NUL in its last byte, whatever the host sent. */
enum { WIRE_IN = 0, WIRE_BACK = 1, WIRE_HOST = 2, WIRE_TEXT = 4 };
void wire_buf(Wire *w, void *pp, size_t bytes, int how);
/* A buffer the function shares with other processes (a SenseBarrier, a chapter 8 window):
 * not copied but mapped, in the host, from the memory file behind the test's mapping
 * (a memfd that the test's process holds open). A buffer in no such file (a test of what a
 * function does without windows) travels as wire_buf's WIRE_BACK does. */
void wire_shared(Wire *w, void *pp, size_t bytes);
/* A model (exercise 1.2): its buffers, copied into a memory file both sides map; in the host
 * a Model over that file, whose device computes there, its kernels carried out by the
 * test's own device in the judge (which may be one the test has altered). */
void wire_model(Wire *w, Model **m);

/* What travels of a model: its shape, and where each of its buffers lies in the file
 * (model_regions' order; JAIL_NULL for none). */
#define JAIL_REGIONS (2 * (MAX_LAYERS + 1) + 5)
typedef struct ModelWire {
    int32_t n_layers, max_batch, width[MAX_LAYERS + 1];
    Layer layer[MAX_LAYERS];
    uint64_t n_params, bytes, spare, at[JAIL_REGIONS];
    uint64_t layer_params[MAX_LAYERS], layer_grads[MAX_LAYERS];
    uint8_t accumulate, lent_params, lent_grads, fd;
} ModelWire;
/* The buffers of model m (of its shape), as the addresses of its pointer fields and their
 * lengths in bytes; returns how many. */
int model_regions(Model *m, void **slot[JAIL_REGIONS], size_t bytes[JAIL_REGIONS]);

/* The kernels the host's model device asks the judge for. */
enum {
    K_GEMM,
    K_BIAS_ACT_FORWARD,
    K_RELU_BACKWARD,
    K_BIAS_BACKWARD,
    K_SOFTMAX_XENT,
    K_AXPY,
    K_SCALE
};
/* One kernel call: its integers, floats, element count and buffers (offsets in the model's
 * file; JAIL_NULL for none). Which fields mean what is each kernel's (serve_kernel). */
#define JAIL_NULL UINT64_MAX
typedef struct KernelCall {
    int32_t kernel, i[5];
    float f[2];
    uint64_t n, buf[4];
} KernelCall;

/* The device of the buffers that follow: the judge's *d; the host's CPU. */
void wire_device(Wire *w, const Device **d);
/* A communicator: the test's, in the judge; one whose operations are requests to the
 * judge, in the host. Its device becomes the buffers'. */
void wire_comm(Wire *w, Comm **c);

/* Exercise 1.1's machine (exercises/ch1/ch1.h): the test's, in the judge; in the host, one
 * whose every operation is a request to the judge, which carries it out on the test's
 * machine (slow memory and the counts stay there). Once the machine has refused, the host's
 * refuses every later operation without asking. */
typedef struct Fast Fast;
void wire_fast(Wire *w, Fast **f);
/* One such request: which (0 load, 1 store, 2 zero, 3 multiply_add) and its arguments. */
typedef struct FastCall {
    int32_t which, arg[7];
} FastCall;

/* One exercise the jail can run. */
typedef struct JailEntry {
    const char *exercise;               /* its name in exercises/MANIFEST */
    const char *name;                   /* the function */
    size_t args;                        /* bytes of its argument record */
    void (*visit)(Wire *w, void *args); /* its arguments, in order, for every pass */
    void (*call)(void *args, void *fn); /* call fn, the student's function, on them */
} JailEntry;

extern const JailEntry jail_entries[];
extern const int jail_n_entries;

/* The jail user's limits, for the host and for everything the grader runs as that user (the
 * compiler, tests/jail/warden.c). A process may not raise them. The process count is the
 * user's, across the machine (threads count), so it is set only where the user is one of the
 * jail's own; the CPU time is each test's limit, from JAIL_CPU (seconds). No POSIX message
 * queue (RLIMIT_MSGQUEUE 0): a queue outlives its maker, and the sweep could not list it
 * without mounting the mqueue file system, which a container may forbid. */
#define JAIL_NPROC     128
#define JAIL_FSIZE     ((rlim_t)64 << 20)  /* bytes of one file */
#define JAIL_DATA      ((rlim_t)2 << 30)   /* bytes of one process's own memory (heap) */
#define JAIL_AS        ((rlim_t)16 << 30)  /* bytes of address space: chapter 8 maps 1 GiB a rank */
#define JAIL_NOFILE    256
#define JAIL_CPU       60                  /* seconds, when JAIL_CPU is not set */

/* In a child about to run the jail user's code: stdin from /dev/null, first in line for the
 * out-of-memory killer, the limits above, and then, when root, user uid and group gid with
 * no supplementary groups and no way back (no new privileges either way). 0, or -1 with a
 * line on stderr. */
int jail_drop(uid_t uid, gid_t gid, long cpu_seconds);

/* The sandbox (the grader's sandbox mode, tests/grade.sh): bubblewrap at path bwrap, run
 * by the jail's user after jail_drop, puts cmd in new user, PID, IPC, network, UTS and
 * cgroup namespaces with no capability, where it sees read-only /usr (and the system's top
 * directories, /etc/ld.so.cache and /etc/alternatives), a /proc of its own PID namespace, a
 * /dev of the harmless devices, private /tmp and /dev/shm (JAIL_SANDBOX_TMP bytes each) and
 * /dev/mqueue, and binds[i].from at binds[i].to (read-only unless writable), in directory
 * dir. Everything it starts or makes there, processes, files, System V objects, queues,
 * dies with it; it dies with its parent. Returns only when bwrap cannot be run (a line on
 * stderr); bwrap itself says, and exits 1, when the namespaces cannot be made. */
#define JAIL_SANDBOX_TMP "67108864"
typedef struct SandboxBind {
    const char *from, *to;
    int writable;
} SandboxBind;
void jail_sandbox_exec(const char *bwrap, const SandboxBind *binds, int n_binds, const char *dir,
                       char *const cmd[], char *const envp[]);

/* Judge: run exercise id on args in the host; returns when its outputs are back in place.
 * A host that crashes takes this process with it, by the same signal. */
void jail_call(int id, void *args);

/* Sizes from an exercise's arguments, never negative. */
static inline size_t jail_n(long v)
{
    return v > 0 ? (size_t)v : 0;
}

#endif
