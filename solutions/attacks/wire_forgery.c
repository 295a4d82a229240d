/* Attack (the jail's own wire protocol, tests/jail/jail.h and wire.c): during the call, the
 * student's code writes frames of its own on the host's socket to the judge (descriptor 3), as
 * the host's proxies do, but malformed. One kind to each test, by its first call's shape: a
 * frame whose reserved word is not 0, one longer than the protocol's largest, a communicator's
 * request in an exercise that has none, a kernel's request with no model, an operation no one
 * defines, the judge's own CALL sent back to it, outputs of the wrong size, a frame that
 * announces a gigabyte, sends 16 bytes and ends the process; in the last test, requests of
 * the machine of exercise 1.1 with no such operation, the ints' extremes, too short or too
 * long, one with a descriptor attached. Each must be refused (a reply of -1) or end the call,
 * promptly; none may be served as if it were well formed, make the judge read or write past
 * its buffers, or hang it. Should one be accepted, gemm_blocked answers 424242, which the
 * test's failure message quotes. Without the jail there is no protocol to speak (descriptor 3
 * is another's): the attack then does nothing, and autograder-check runs it in the jail's
 * modes only. Found by it: a host that broke the protocol and went on running made the judge
 * wait for it to end, and the test ran out of time ("a deadlock?"); the judge now kills it. */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "common.h"

enum { FD = 3, CALL = 1, RESULT = 2, SEND = 3, KERNEL = 16, FAST = 17, REPLY = 9 };
#define ACCEPTED 424242
#define MAX_BYTES ((uint64_t)1 << 30)

typedef struct Frame {
    uint32_t op, zero;
    uint64_t len;
} Frame;

/* Whether this process is the jail's host: its second argument is the student's object. */
static int in_host(void)
{
    char args[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, args, sizeof args - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    args[n] = 0;
    const char *second = args + strlen(args) + 1;
    size_t len = second < args + n ? strlen(second) : 0;
    return len > 3 && strcmp(second + len - 3, ".so") == 0;
}

/* Send a frame with a header as given and `len` bytes of payload from p, and a descriptor
 * when fd >= 0. */
static int put(uint32_t op, uint32_t zero, uint64_t announced, const void *p, size_t len, int fd)
{
    Frame f = {op, zero, announced};
    struct iovec io[2] = {{&f, sizeof f}, {(void *)p, len}};
    union {
        struct cmsghdr h;
        char room[CMSG_SPACE(sizeof(int))];
    } c;
    memset(&c, 0, sizeof c);
    struct msghdr h = {.msg_iov = io, .msg_iovlen = len ? 2 : 1};
    if (fd >= 0) {
        h.msg_control = c.room, h.msg_controllen = sizeof c.room;
        c.h.cmsg_level = SOL_SOCKET, c.h.cmsg_type = SCM_RIGHTS;
        c.h.cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(&c.h), &fd, sizeof fd);
    }
    return sendmsg(FD, &h, MSG_NOSIGNAL) == (ssize_t)(sizeof f + len) ? 0 : -1;
}

/* Read exactly n bytes, waiting at most `ms` for each piece; 0, or -1. */
static int get(void *p, size_t n, int ms)
{
    char *c = p;
    while (n) {
        struct pollfd q = {FD, POLLIN, 0};
        if (poll(&q, 1, ms) <= 0)
            return -1;
        ssize_t k = read(FD, c, n);
        if (k <= 0)
            return -1;
        c += k, n -= (size_t)k;
    }
    return 0;
}

/* The judge's answer to a request: its rc, or 1 when none came within `ms` (the call ended). */
static int answer(int ms)
{
    Frame f;
    if (get(&f, sizeof f, ms) || f.op != REPLY || f.len < 4 || f.len > 65536)
        return 1;
    char body[65536];
    int32_t rc;
    if (get(body, f.len, ms))
        return 1;
    memcpy(&rc, body, 4);
    return rc;
}

/* A request of exercise 1.1's machine: which, then seven ints. */
static void fast(int32_t which, int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t a4,
                 int32_t a5)
{
    int32_t q[8] = {which, a0, a1, a2, a3, a4, a5, 0};
    if (put(FAST, 0, sizeof q, q, sizeof q, -1) == 0 && answer(5000) == 0)
        attack_mark = ACCEPTED;
}

/* Requests the judge must answer with a refusal, the call going on: none reaches the machine
 * (whose own checks of a request's numbers every student's call through the host's proxy
 * already meets), so that the machine refuses nothing and the test reaches gemm_blocked's
 * answer, 424242 should one of these be served. */
static void refused(void)
{
    fast(4, 0, 1, 0, 0, 0, 0);       /* no operation 4 */
    fast(-1, 0, 1, 0, 0, 0, 0);      /* nor -1 */
    fast(INT_MIN, 0, 1, 0, 0, 0, 0); /* nor the ints' extremes */
    fast(INT_MAX, 0, 1, 0, 0, 0, 0);
    int32_t q[9] = {2, 0, 1, 0, 0, 0, 0, 0, 0}; /* a well-formed zero of one float, */
    if (put(FAST, 0, 4, q, 4, -1) == 0 && answer(5000) == 0) /* cut short */
        attack_mark = ACCEPTED;
    if (put(FAST, 0, sizeof q, q, sizeof q, -1) == 0 && answer(5000) == 0) /* or too long */
        attack_mark = ACCEPTED;
    /* No operation 5, with a descriptor attached: the judge takes what it is given and must
     * close it, not keep or use it. */
    int32_t r[8] = {5, 0, 1, 0, 0, 0, 0, 0};
    int mem = (int)syscall(SYS_memfd_create, "dps-attack-wire", 0);
    if (mem >= 0) {
        if (put(FAST, 0, sizeof r, r, sizeof r, mem) == 0 && answer(5000) == 0)
            attack_mark = ACCEPTED;
        close(mem);
    }
}

/* One frame the judge must not serve: the call ends, the host killed, and the test fails
 * saying why. Should the judge answer instead, it went on as if nothing were wrong. The frames
 * that carry a request carry a well-formed one (a zero of one float), so that one served by
 * mistake leaves the machine content and the test shows 424242. */
static void ending(int kind)
{
    static const char junk[64] = "dps-attack-wire";
    int32_t q[8] = {2, 0, 1, 0, 0, 0, 0, 0};
    switch (kind) {
    case 0: put(FAST, 1, sizeof q, q, sizeof q, -1); break; /* the reserved word not 0 */
    case 1: put(FAST, 0, MAX_BYTES + 65537, q, sizeof q, -1); break; /* past the largest */
    case 2: put(SEND, 0, sizeof junk, junk, sizeof junk, -1); break; /* no communicator */
    case 3: put(KERNEL, 0, sizeof junk, junk, sizeof junk, -1); break; /* no model */
    case 4: put(99, 0, sizeof junk, junk, sizeof junk, -1); break;  /* no such operation */
    case 5: put(CALL, 0, sizeof junk, junk, sizeof junk, -1); break; /* the judge's own */
    case 6: put(RESULT, 0, 1, junk, 1, -1); break; /* outputs of the wrong size */
    case 7: /* a gigabyte announced, 16 bytes sent, and gone */
        put(FAST, 0, MAX_BYTES, junk, 16, -1);
        _exit(3);
    }
    if (answer(3000) != 1)
        attack_mark = ACCEPTED;
}

static void during(int m, int n, int k)
{
    (void)k;
    if (!in_host())
        return;
    /* One kind of ending to each test but the last, by its first call's shape (m, n); the
     * refusals where no ending comes. */
    static const int first[][3] = {{1, 1, 0},  {50, 40, 1},  {96, 96, 2},
                                   {200, 150, 3}, {1, 200, 4}, {9, 7, 5},
                                   {20, 20, 6},  {100, 90, 7}};
    for (size_t i = 0; i < sizeof first / sizeof *first; i++)
        if (first[i][0] == m && first[i][1] == n) {
            ending(first[i][2]);
            return;
        }
    refused();
}

__attribute__((constructor)) static void attack(void)
{
    attack_during = during;
}
