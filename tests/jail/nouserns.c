/* Run a command where no process may make a namespace, as in a Docker container with its
 * default seccomp profile and without CAP_SYS_ADMIN (Gradescope's, most likely): clone and
 * unshare with any CLONE_NEW* flag and setns fail with EPERM, clone3 with ENOSYS (so that a
 * caller falls back to clone, whose flags a filter can read). make autograder-check grades
 * under it to see the grader choose its jail mode where the sandbox cannot run.
 *
 *   nouserns CMD ARG...        (root, or a process with no new privileges) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CLONE_NEW* (sched.h) */
#endif
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "nouserns: an architecture this filter does not know"
#endif

#define NEW_ANY                                                                          \
    (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
     CLONE_NEWCGROUP)
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RETURN(v)   BPF_STMT(BPF_RET | BPF_K, (v))

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: nouserns CMD ARG...\n");
        return 2;
    }
    struct sock_filter f[] = {
        LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
        RETURN(SECCOMP_RET_KILL_PROCESS),
        LOAD(nr),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
        RETURN(SECCOMP_RET_ERRNO | ENOSYS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setns, 0, 1),
        RETURN(SECCOMP_RET_ERRNO | EPERM),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
        LOAD(args[0]), /* clone's flags (their low 32 bits, where CLONE_NEW* lie) */
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NEW_ANY, 0, 1),
        RETURN(SECCOMP_RET_ERRNO | EPERM),
        RETURN(SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof *f), f};
    if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
        perror("nouserns: no new privileges");
        return 1;
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
        perror("nouserns: the seccomp filter");
        return 1;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "nouserns: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
