/* The jail's warden (tests/grade.sh, as root in the autograder): what the grader does around
 * the jail user's code, done by system calls instead of a shell that follows paths.
 *
 *   warden run [--timeout S] [--drop UID:GID] [--cpu S] [--leftover PATH]
 *              [--sandbox BWRAP [--ro-bind PATH]... [--bind PATH]... [--chdir DIR]] -- CMD ARG...
 *       Run CMD (as the jail user, with jail_drop's limits, when --drop is given; in the
 *       sandbox of jail_sandbox_exec with --sandbox, bubblewrap at BWRAP, where it sees each
 *       PATH at its own place, read-only or writable, and starts in DIR), in a
 *       process group of its own, and wait for it, S seconds at most (a decimal): then TERM
 *       to the group, KILL 2 s later. The warden is the subreaper of everything CMD starts:
 *       whatever is left when CMD ends, daemons included, is killed and reaped before it
 *       returns. Then PATH, with CMD's process id for its one %d, is removed if it is there
 *       and the warden's own (not a link): the socket a test runner that was killed leaves
 *       (Criterion's /tmp/criterion_%d.sock). Exit status: CMD's (128 + signal when
 *       killed), 124 when it ran out of time.
 *   warden sweep UID:GID DIRS
 *       Kill every process of user UID, as that user (kill(-1), again until none is left),
 *       then, as that user, remove what it owns at the top of each directory named in the
 *       file DIRS (NUL-separated: the directories it can write), its System V IPC
 *       objects (owned or made) and its keyrings' keys; check as root that no process of
 *       UID is left. 0, or 1 with a line saying
 *       what survived.
 *   warden take UID DIR NAME DEST MAX
 *       Copy file NAME of directory DIR (the jail user's) to DEST, a path of root's, only
 *       if it is a regular file that UID owns, with one link and at most MAX bytes, opened
 *       without following a link (O_NOFOLLOW, relative to DIR's descriptor). DEST is made
 *       anew (O_EXCL), mode 0644. 0, or 1 with a line saying what it was.
 *
 * Root never opens, creates, truncates or removes a path below a directory the jail user can
 * write: it passes such paths to the jail user's processes (the compiler, the host) or opens
 * them here with O_NOFOLLOW relative to a directory it opened itself. */
#include <dirent.h>
#include <errno.h>
#include <linux/keyctl.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jail.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void pause_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* What /proc/PID/status says of process pid (a /proc entry's name): its state letter ('?'
 * when it is gone), real user and parent. */
typedef struct Status {
    char state;
    unsigned long uid;
    long ppid;
} Status;

static Status status_of(const char *pid)
{
    char path[300], line[256];
    Status st = {'?', (unsigned long)-1, -1};
    snprintf(path, sizeof path, "/proc/%s/status", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "State:", 6) == 0)
            sscanf(line + 6, " %c", &st.state);
        else if (strncmp(line, "Uid:", 4) == 0)
            sscanf(line + 4, "%lu", &st.uid);
        else if (strncmp(line, "PPid:", 5) == 0)
            st.ppid = atol(line + 5);
    if (f)
        fclose(f);
    return st;
}

/* Whether process pid belongs to real user uid and is not a zombie. */
static int alive_of(const char *pid, uid_t uid)
{
    Status st = status_of(pid);
    return st.uid == (unsigned long)uid && st.state != 'Z' && st.state != 'X' && st.state != '?';
}

/* How many live processes user uid has, other than this one; the first few in *list. */
static int processes_of(uid_t uid, char *list, size_t room)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    char self[32];
    snprintf(self, sizeof self, "%d", (int)getpid());
    if (list && room)
        list[0] = 0;
    while (d && (e = readdir(d)))
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, self) &&
            alive_of(e->d_name, uid)) {
            if (list && n < 8)
                snprintf(list + strlen(list), room - strlen(list), " %s", e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

/* ---- run */

/* Remove fmt (an absolute path, its %d the process id pid) if it is this user's and not a
 * link: opened through its directory, which may be one the jail's user can write too. */
static void remove_leftover(const char *fmt, pid_t pid)
{
    char path[4096], *slash;
    struct stat st;
    snprintf(path, sizeof path, fmt, (int)pid);
    slash = strrchr(path, '/');
    *slash = 0;
    int dir = open(*path ? path : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0 && !fstatat(dir, slash + 1, &st, AT_SYMLINK_NOFOLLOW) &&
        st.st_uid == geteuid() && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
        unlinkat(dir, slash + 1, 0);
    if (dir >= 0)
        close(dir);
}

static int run(int argc, char **argv)
{
    double limit = 0;
    long cpu = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    int drop = 0, i = 0, n_binds = 0;
    const char *leftover = NULL, *bwrap = NULL, *dir = NULL;
    SandboxBind binds[8];
    for (; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--leftover") && i + 1 < argc) {
            leftover = argv[++i];
            const char *pc = strchr(leftover, '%');
            if (!pc || pc[1] != 'd' || strchr(pc + 1, '%') || leftover[0] != '/') {
                fprintf(stderr, "warden: --leftover wants an absolute path with one %%d\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
            limit = atof(argv[++i]);
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
            cpu = atol(argv[++i]);
        else if (!strcmp(argv[i], "--drop") && i + 1 < argc) {
            unsigned long u, g;
            if (sscanf(argv[++i], "%lu:%lu", &u, &g) != 2) {
                fprintf(stderr, "warden: --drop UID:GID, not %s\n", argv[i]);
                return 2;
            }
            uid = (uid_t)u, gid = (gid_t)g, drop = 1;
        } else if (!strcmp(argv[i], "--sandbox") && i + 1 < argc)
            bwrap = argv[++i];
        else if (!strcmp(argv[i], "--chdir") && i + 1 < argc)
            dir = argv[++i];
        else if ((!strcmp(argv[i], "--bind") || !strcmp(argv[i], "--ro-bind")) && i + 1 < argc &&
                 n_binds < (int)(sizeof binds / sizeof *binds)) {
            binds[n_binds].writable = !strcmp(argv[i], "--bind");
            binds[n_binds].from = binds[n_binds].to = argv[++i];
            if (argv[i][0] != '/') {
                fprintf(stderr, "warden: %s wants an absolute path, not %s\n", argv[i - 1], argv[i]);
                return 2;
            }
            n_binds++;
        } else {
            fprintf(stderr, "warden: run: unknown option %s\n", argv[i]);
            return 2;
        }
    if (i + 1 >= argc) {
        fprintf(stderr, "warden: run: no command after --\n");
        return 2;
    }
    char **cmd = argv + i + 1;
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t child = fork();
    if (child < 0) {
        perror("warden: fork");
        return 125;
    }
    if (child == 0) {
        setpgid(0, 0);
        if (drop && jail_drop(uid, gid, cpu))
            _exit(126);
        if (bwrap) {
            extern char **environ;
            jail_sandbox_exec(bwrap, binds, n_binds, dir, cmd, environ);
            _exit(127);
        }
        execvp(cmd[0], cmd);
        fprintf(stderr, "warden: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    setpgid(child, child);
    double start = now(), termed = 0;
    int status = 0, timed_out = 0;
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p == child) {
            status = st;
            break;
        }
        if (p > 0)
            continue; /* an orphan of CMD's, reaped */
        if (limit > 0 && !termed && now() - start > limit) {
            kill(-child, SIGTERM), kill(child, SIGTERM);
            termed = now(), timed_out = 1;
        }
        if (termed && now() - termed > 2)
            kill(-child, SIGKILL), kill(child, SIGKILL);
        pause_ms(2);
    }
    /* CMD has ended: whatever it left (its group, and every orphan now ours) is killed. */
    kill(-child, SIGKILL);
    for (;;) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
                status_of(e->d_name).ppid == (long)getpid())
                kill((pid_t)atol(e->d_name), SIGKILL);
        if (d)
            closedir(d);
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p < 0 && errno == ECHILD)
            break;
    }
    if (leftover)
        remove_leftover(leftover, child);
    if (timed_out)
        return 124;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- sweep */

/* Remove entry name of directory dir, a tree of the calling user's (as that user), to any
 * depth: one directory open at a time, the names of the way down kept on the heap, and the
 * way up by "..", so that a chain deeper than the descriptors a process may hold, or than
 * PATH_MAX, goes too; within SWEEP_SECONDS. 0, or 1 when something stayed. */
enum { SWEEP_SECONDS = 60 };
static int remove_tree(int dir, const char *name)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
        return errno == ENOENT ? 0 : 1;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(dir, name, 0) && errno != ENOENT;
    fchmodat(dir, name, 0700, 0);
    int cur = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), bad = cur < 0;
    size_t depth = 0, cap = 0;
    char **way = NULL;
    double start = now();
    while (cur >= 0) {
        if (now() - start > SWEEP_SECONDS) {
            bad = 1;
            break;
        }
        /* This directory's files go; its first directory, if any, is the way down. */
        int scan = dup(cur);
        DIR *d = scan >= 0 ? fdopendir(scan) : NULL;
        char *sub = NULL;
        struct dirent *e;
        while (d && !sub && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if (fstatat(cur, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
                continue;
            if (S_ISDIR(st.st_mode))
                sub = strdup(e->d_name);
            else if (unlinkat(cur, e->d_name, 0) && errno != ENOENT)
                bad = 1;
        }
        if (d)
            closedir(d);
        else {
            if (scan >= 0)
                close(scan);
            bad = 1;
            break;
        }
        if (sub) {
            fchmodat(cur, sub, 0700, 0);
            int next = openat(cur, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            char **grown = depth == cap ? realloc(way, (cap = cap ? 2 * cap : 64) * sizeof *way) : way;
            if (next < 0 || !grown) {
                if (next >= 0)
                    close(next);
                free(sub);
                bad = 1;
                break;
            }
            way = grown;
            way[depth++] = sub;
            close(cur);
            cur = next;
            continue;
        }
        if (depth == 0)
            break;
        /* Empty now: up one, and remove it there. Nothing of the user's runs (the sweep
         * comes after the kill), so ".." is the directory it was found in. */
        int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(cur);
        cur = up;
        char *below = way[--depth];
        int stayed = up < 0 || (unlinkat(up, below, AT_REMOVEDIR) && errno != ENOENT);
        free(below);
        if (stayed) { /* what stays in it would be the way down again: stop */
            bad = 1;
            break;
        }
    }
    if (cur >= 0)
        close(cur);
    while (depth > 0)
        free(way[--depth]);
    free(way);
    return bad | (unlinkat(dir, name, AT_REMOVEDIR) && errno != ENOENT);
}

/* Remove, as the calling user, every entry it owns at the top of directory path. */
static int clear_dir(const char *path, uid_t uid, int *removed)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), bad = 0;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    struct stat st;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            !fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) && st.st_uid == uid) {
            bad |= remove_tree(fd, e->d_name);
            (*removed)++;
        }
    if (d)
        closedir(d);
    else if (fd >= 0)
        close(fd);
    return bad;
}

/* Remove the calling user's System V IPC objects, as /proc/sysvipc lists them: those it owns
 * and those it made and gave away (IPC_SET to root's uid leaves the maker its rights, so the
 * object would outlive the grade in root's name). */
static void clear_ipc(uid_t uid)
{
    const char *kind[3] = {"shm", "sem", "msg"};
    for (int k = 0; k < 3; k++) {
        char path[32], line[512];
        snprintf(path, sizeof path, "/proc/sysvipc/%s", kind[k]);
        FILE *f = fopen(path, "r");
        int id_col = 1, uid_col = -1, cuid_col = -1, col = 0;
        if (!f || !fgets(line, sizeof line, f)) {
            if (f)
                fclose(f);
            continue;
        }
        for (char *t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n"), col++)
            if (!strcmp(t, "uid"))
                uid_col = col;
            else if (!strcmp(t, "cuid"))
                cuid_col = col;
        while (uid_col > 0 && fgets(line, sizeof line, f)) {
            long v[32] = {0};
            int n = 0;
            for (char *t = strtok(line, " \t\n"); t && n < 32; t = strtok(NULL, " \t\n"))
                v[n++] = atol(t);
            if (n <= uid_col || n <= cuid_col ||
                ((uid_t)v[uid_col] != uid && (cuid_col < 0 || (uid_t)v[cuid_col] != uid)))
                continue;
            int id = (int)v[id_col];
            if (k == 0)
                shmctl(id, IPC_RMID, NULL);
            else if (k == 1)
                semctl(id, 0, IPC_RMID);
            else
                msgctl(id, IPC_RMID, NULL);
        }
        fclose(f);
    }
}

/* Empty the calling user's keyrings: the user keyring, the user session keyring and the
 * persistent one (where the kernel has it). They belong to the user, not to a process, so a
 * key added to them outlives every process of the user and could carry what one exercise's
 * host saw into the next exercise's output. */
static void clear_keys(void)
{
    syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING);
    syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING);
    long persistent = syscall(SYS_keyctl, KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_PROCESS_KEYRING);
    if (persistent >= 0)
        syscall(SYS_keyctl, KEYCTL_CLEAR, persistent);
}

static int sweep(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "warden: sweep UID:GID DIRS\n");
        return 2;
    }
    unsigned long u = 0, g = 0;
    sscanf(argv[0], "%lu:%lu", &u, &g);
    uid_t uid = (uid_t)u;
    gid_t gid = (gid_t)g;
    if (uid == 0 || geteuid() != 0) {
        fprintf(stderr, "warden: sweep: only root sweeps, and never root's processes\n");
        return 2;
    }
    /* The directories, read as root from root's file, before anything runs as the user. */
    static char dirs[1 << 20];
    FILE *f = fopen(argv[1], "r");
    size_t n = f ? fread(dirs, 1, sizeof dirs - 1, f) : 0;
    if (f)
        fclose(f);
    dirs[n] = 0;
    pid_t p = fork();
    if (p == 0) { /* as the user: no privilege over anyone else's processes or files */
        if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
            _exit(3);
        for (int round = 0; round < 500; round++) {
            kill(-1, SIGKILL);
            if (!processes_of(uid, NULL, 0))
                break;
            pause_ms(round < 10 ? 1 : 10);
        }
        int removed = 0, bad = 0;
        for (size_t at = 0; at < n; at += strlen(dirs + at) + 1)
            if (dirs[at])
                bad |= clear_dir(dirs + at, uid, &removed);
        clear_ipc(uid);
        clear_keys();
        _exit(bad ? 4 : 0);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) == 3) {
        fprintf(stderr, "warden: sweep: could not act as user %u\n", (unsigned)uid);
        return 1;
    }
    char list[256];
    int left = processes_of(uid, list, sizeof list);
    if (left) {
        fprintf(stderr, "warden: sweep: %d processes of user %u survived:%s\n", left,
                (unsigned)uid, list);
        return 1;
    }
    if (WEXITSTATUS(st) == 4) {
        fprintf(stderr, "warden: sweep: some files of user %u could not be removed\n",
                (unsigned)uid);
        return 1;
    }
    return 0;
}

/* ---- take */

static int take(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "warden: take UID DIR NAME DEST MAX\n");
        return 2;
    }
    uid_t uid = (uid_t)atol(argv[0]);
    const char *name = argv[2], *dest = argv[3];
    long long max = atoll(argv[4]);
    struct stat st;
    if (strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, ".")) {
        fprintf(stderr, "warden: take: %s is not a name\n", name);
        return 2;
    }
    int dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = dir < 0 ? -1 : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    const char *why = dir < 0                    ? "its directory cannot be opened"
                      : fd < 0 && errno == ELOOP ? "a symbolic link"
                      : fd < 0                   ? "missing"
                      : fstat(fd, &st)           ? "cannot be read"
                      : !S_ISREG(st.st_mode)     ? "not a regular file"
                      : st.st_uid != uid         ? "not the jail user's"
                      : st.st_nlink != 1         ? "a file with other names (a hard link)"
                      : st.st_size > max         ? "larger than the limit"
                                                 : NULL;
    if (why) {
        fprintf(stderr, "warden: take: %s: %s\n", name, why);
        return 1;
    }
    unlink(dest);
    int out = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    char buf[1 << 16];
    ssize_t k;
    long long total = 0;
    while (out >= 0 && (k = read(fd, buf, sizeof buf)) > 0 && (total += k) <= max)
        if (write(out, buf, (size_t)k) != k)
            break;
    int bad = out < 0 || k != 0 || total > max || fchmod(out, 0644) || close(out);
    close(fd), close(dir);
    if (bad) {
        unlink(dest);
        fprintf(stderr, "warden: take: %s could not be copied to %s\n", name, dest);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "run"))
        return run(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "sweep"))
        return sweep(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "take"))
        return take(argc - 2, argv + 2);
    fprintf(stderr, "usage: warden run|sweep|take ... (tests/jail/warden.c)\n");
    return 2;
}
