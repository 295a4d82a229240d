/* The autograder's warden (tests/jail/warden.c): what root does around the jail user's code.
 * `take` copies the student's object out of the user's directory only when it is what it
 * claims (never through a link); `run` bounds a command's time and leaves nothing of it
 * running; `sweep` removes a user's files at any depth, its IPC objects and its keys. (The
 * sweep also kills every process of its user on the machine: here it sweeps a user id that no
 * process has, made up for the test; make autograder-check's attacks run it on the jail's
 * user.) */
#include <grp.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <signal.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "helpers.h"

/* A fresh directory for one test, and a path in it. */
static void scratch(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/dps-warden-XXXXXX");
    cr_assert(mkdtemp(dir), "mkdtemp failed");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* The process id a command wrote into @p path (@p what: who wrote it, for the message). */
static long pid_in(const char *path, const char *what)
{
    long pid = 0;
    FILE *f = fopen(path, "r");
    cr_assert(f && fscanf(f, "%ld", &pid) == 1, "%s did not write its process id", what);
    fclose(f);
    return pid;
}

/* Process @p pid, a daemon the warden's command started, must be gone (killed if not). */
static void expect_gone(long pid)
{
    cr_expect(kill((pid_t)pid, 0) != 0, "the daemon %ld still runs after the warden returned",
              pid);
    if (kill((pid_t)pid, 0) == 0)
        kill((pid_t)pid, SIGKILL);
}

static void remove_scratch(const char *dir)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert(system(cmd) == 0);
}

/* warden take on name @p name of @p dir into @p dest (limit @p max bytes), into @p r. */
static void take(const char *dir, const char *name, const char *dest, const char *max, Run *r)
{
    char uid[32];
    snprintf(uid, sizeof uid, "%u", (unsigned)getuid());
    run_program((char *[]){WARDEN, "take", uid, (char *)dir, (char *)name, (char *)dest,
                           (char *)max, NULL},
                r);
}

Test(warden, take_copies_a_regular_file_and_refuses_links_fifos_and_large_ones, .timeout = 30)
{
    static Run r;
    char dir[64], path[128], dest[128], secret[128], got[64] = "";
    scratch(dir, sizeof dir);
    snprintf(secret, sizeof secret, "%s/secret", dir);
    write_file(secret, "root's\n");
    snprintf(path, sizeof path, "%s/a.so", dir);
    write_file(path, "the object\n");
    snprintf(dest, sizeof dest, "%s/taken.so", dir);

    take(dir, "a.so", dest, "100", &r);
    cr_assert(r.status == 0, "a regular file was refused: %s", r.err);
    FILE *f = fopen(dest, "r");
    cr_assert(f && fgets(got, sizeof got, f), "nothing at %s", dest);
    fclose(f);
    cr_expect_str_eq(got, "the object\n");
    struct stat st;
    cr_expect(stat(dest, &st) == 0 && (st.st_mode & 0777) == 0644, "the copy's mode is %o",
              st.st_mode & 0777);

    /* A link to the secret, a second name of it, a fifo, a file over the limit, no file. */
    snprintf(path, sizeof path, "%s/link.so", dir);
    cr_assert(symlink(secret, path) == 0);
    snprintf(path, sizeof path, "%s/hard.so", dir);
    cr_assert(link(secret, path) == 0);
    snprintf(path, sizeof path, "%s/fifo.so", dir);
    cr_assert(mkfifo(path, 0600) == 0);
    snprintf(path, sizeof path, "%s/big.so", dir);
    write_file(path, "more than ten bytes\n");
    const char *name[] = {"link.so", "hard.so", "fifo.so", "big.so", "none.so", "../x"};
    const char *why[] = {"a symbolic link", "a hard link", "not a regular file",
                         "larger than the limit", "missing", "is not a name"};
    for (int i = 0; i < 6; i++) {
        unlink(dest);
        take(dir, name[i], dest, "10", &r);
        cr_expect(r.status != 0, "%s was taken", name[i]);
        cr_expect(strstr(r.err, why[i]), "%s: expected '%s' in: %s", name[i], why[i], r.err);
        cr_expect(access(dest, F_OK) != 0, "%s: something was written to %s", name[i], dest);
    }
    remove_scratch(dir);
}

Test(warden, run_ends_a_command_out_of_time_and_leaves_nothing_of_it_running, .timeout = 60)
{
    static Run r;
    char dir[64], pidfile[128], script[1024];
    scratch(dir, sizeof dir);
    snprintf(pidfile, sizeof pidfile, "%s/daemon", dir);
    /* A daemon (double fork, a session of its own, deaf to TERM), then a command that never
     * ends: the warden's time runs out; the daemon must be gone when it returns. */
    snprintf(script, sizeof script,
             "(setsid sh -c 'trap \"\" TERM; echo $$ > %s; exec sleep 300' </dev/null "
             ">/dev/null 2>&1 &); while [ ! -s %s ]; do sleep 0.05; done; exec sleep 300",
             pidfile, pidfile);
    run_program((char *[]){WARDEN, "run", "--timeout", "1.5", "--", "sh", "-c", script, NULL},
                &r);
    cr_expect(r.status == 124, "a command out of time: status %d, expected 124 (%s)", r.status,
              r.err);
    expect_gone(pid_in(pidfile, "the daemon"));

    /* A command that ends by itself, leaving a file named with its process id (removed) and
     * a link named so (left, and its target untouched): its status, and again nothing left. */
    char leftover[128], kept[128], target[128];
    snprintf(leftover, sizeof leftover, "%s/left-%%d", dir);
    snprintf(target, sizeof target, "%s/target", dir);
    write_file(target, "mine\n");
    snprintf(script, sizeof script,
             "(setsid sh -c 'echo $$ > %s; exec sleep 300' </dev/null >/dev/null 2>&1 &); "
             "while [ ! -s %s ]; do sleep 0.05; done; echo x > %s/left-$$; "
             "ln -s %s %s/link-$$; echo $$ > %s/command; exit 7",
             pidfile, pidfile, dir, target, dir, dir);
    unlink(pidfile);
    run_program((char *[]){WARDEN, "run", "--timeout", "30", "--leftover", leftover, "--", "sh",
                           "-c", script, NULL},
                &r);
    cr_expect(r.status == 7, "the command's status 7 came back as %d (%s)", r.status, r.err);
    snprintf(kept, sizeof kept, "%s/command", dir);
    long cmd_pid = pid_in(kept, "the command");
    snprintf(kept, sizeof kept, "%s/left-%ld", dir, cmd_pid);
    cr_expect(access(kept, F_OK) != 0, "the leftover %s was not removed", kept);
    /* With the link as the leftover: the link stays, and so does what it points at. */
    snprintf(leftover, sizeof leftover, "%s/link-%%d", dir);
    snprintf(script, sizeof script, "ln -s %s %s/link-$$; echo $$ > %s/command", target, dir,
             dir);
    run_program((char *[]){WARDEN, "run", "--leftover", leftover, "--", "sh", "-c", script, NULL},
                &r);
    snprintf(kept, sizeof kept, "%s/command", dir);
    cmd_pid = pid_in(kept, "the command");
    snprintf(kept, sizeof kept, "%s/link-%ld", dir, cmd_pid);
    struct stat st;
    cr_expect(lstat(kept, &st) == 0 && S_ISLNK(st.st_mode), "the link %s was removed", kept);
    cr_expect(access(target, F_OK) == 0, "the link's target %s was removed", target);
    expect_gone(pid_in(pidfile, "the second daemon"));
    remove_scratch(dir);
}

Test(warden, bad_use_is_one_line_and_status_2)
{
    static Run r;
    char *const cases[][4] = {{WARDEN, NULL}, {WARDEN, "run", "--", NULL},
                              {WARDEN, "take", "0", NULL}, {WARDEN, "run", "--bogus", NULL}};
    for (int i = 0; i < 4; i++) {
        run_program(cases[i], &r);
        cr_expect(r.status == 2, "case %d: status %d, expected 2 (%s)", i, r.status, r.err);
        cr_expect(count_lines(r.err) == 1, "case %d: expected one line, got: %s", i, r.err);
    }
}

/* A chain of 300 directories of 26-character names, 8,000 characters deep (past PATH_MAX and
 * past the 64 levels the sweep once stopped at), with a file at every level, made by a user
 * of its own: the sweep as that user removes all of it and says nothing. Root only (the
 * sweep acts as the user). */
Test(warden, sweep_removes_a_tree_deeper_than_path_max, .timeout = 60)
{
    if (geteuid() != 0)
        cr_skip_test("the sweep needs root (it acts as the user it sweeps): run make test as root");
    static Run r;
    char dir[64], list[128];
    scratch(dir, sizeof dir);
    uid_t uid = (uid_t)(2000000000u + (unsigned)getpid() % 100000u); /* no process has it */
    cr_assert(chown(dir, uid, uid) == 0, "chown %s: %s", dir, strerror(errno));
    pid_t p = fork();
    if (p == 0) {
        if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ||
            chdir(dir))
            _exit(1);
        for (int i = 0; i < 300; i++) {
            char name[32];
            snprintf(name, sizeof name, "a_level_of_the_chain_%05d", i);
            FILE *f = fopen("file", "w");
            if (!f || fclose(f) || mkdir(name, 0700) || chdir(name))
                _exit(1);
        }
        _exit(0);
    }
    int st;
    cr_assert(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the user %u could not make the chain", (unsigned)uid);
    snprintf(list, sizeof list, "%s.list", dir);
    FILE *f = fopen(list, "w");
    cr_assert(f);
    fwrite(dir, 1, strlen(dir) + 1, f); /* one directory, NUL-terminated */
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof spec, "%u:%u", (unsigned)uid, (unsigned)uid);
    run_program((char *[]){WARDEN, "sweep", spec, list, NULL}, &r);
    cr_expect(r.status == 0, "the sweep: status %d (%s)", r.status, r.err);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    cr_expect(system(cmd) == 0, "the sweep left something of the chain in %s", dir);
    unlink(list);
    remove_scratch(dir);
}

/* What a user leaves in the kernel rather than in files: a System V segment it made and gave
 * to root (IPC_SET keeps the maker's rights, so it would outlive the grade in root's name), a
 * message queue, and a key in its user keyring (the user's, not a process's: it outlives them
 * all). The sweep as that user removes the segment and the queue and empties the keyring.
 * Root only. */
Test(warden, sweep_removes_ipc_objects_made_and_given_away_and_the_users_keys, .timeout = 30)
{
    if (geteuid() != 0)
        cr_skip_test("the sweep needs root (it acts as the user it sweeps): run make test as root");
    static Run r;
    char dir[64], list[128], desc[64];
    scratch(dir, sizeof dir);
    uid_t uid = (uid_t)(2000000000u + (unsigned)getpid() % 100000u); /* no process has it */
    key_t shm_key = (key_t)(0x5d000000 | (getpid() & 0xffffff)), msg_key = shm_key ^ 0x00800000;
    snprintf(desc, sizeof desc, "dps-warden-test-%d", (int)getpid());
    pid_t p = fork();
    if (p == 0) {
        if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
            _exit(1);
        struct shmid_ds ds;
        int shm = shmget(shm_key, 4096, IPC_CREAT | IPC_EXCL | 0600);
        if (shm < 0 || shmctl(shm, IPC_STAT, &ds))
            _exit(2);
        ds.shm_perm.uid = 0, ds.shm_perm.gid = 0; /* given to root */
        if (shmctl(shm, IPC_SET, &ds) || msgget(msg_key, IPC_CREAT | IPC_EXCL | 0600) < 0)
            _exit(3);
        /* 5: no keyrings here (a container's seccomp may refuse add_key): the rest stands */
        if (syscall(SYS_add_key, "user", desc, "left behind", 11, KEY_SPEC_USER_KEYRING) < 0)
            _exit(errno == ENOSYS || errno == EPERM || errno == EACCES ? 5 : 4);
        _exit(0);
    }
    int st;
    cr_assert(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
                  (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 5),
              "the user %u could not make its objects (step %d)", (unsigned)uid,
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    int keys = WEXITSTATUS(st) == 0;
    int shm = shmget(shm_key, 0, 0);
    struct shmid_ds ds;
    cr_assert(shm >= 0 && shmctl(shm, IPC_STAT, &ds) == 0 && ds.shm_perm.uid == 0 &&
              ds.shm_perm.cuid == uid, "the segment is not root's and made by user %u",
              (unsigned)uid);
    snprintf(list, sizeof list, "%s.list", dir);
    FILE *f = fopen(list, "w");
    cr_assert(f);
    fwrite(dir, 1, strlen(dir) + 1, f);
    fclose(f);
    char spec[64];
    snprintf(spec, sizeof spec, "%u:%u", (unsigned)uid, (unsigned)uid);
    run_program((char *[]){WARDEN, "sweep", spec, list, NULL}, &r);
    cr_expect(r.status == 0, "the sweep: status %d (%s)", r.status, r.err);
    int shm_left = shmget(shm_key, 0, 0), shm_errno = errno, msg_left = msgget(msg_key, 0);
    cr_expect(shm_left < 0 && shm_errno == ENOENT, "the segment given to root outlived the sweep");
    cr_expect(msg_left < 0, "the message queue outlived the sweep");
    if (shm_left >= 0)
        shmctl(shm_left, IPC_RMID, NULL);
    if (msg_left >= 0)
        msgctl(msg_left, IPC_RMID, NULL);
    p = keys ? fork() : -2;
    if (p == 0) { /* the key is found only in the user's own keyring, by the user */
        if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
            _exit(1);
        long k = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", desc, 0);
        syscall(SYS_keyctl, KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING);
        _exit(k < 0 ? 0 : 2);
    }
    if (keys) {
        cr_assert(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st));
        cr_expect(WEXITSTATUS(st) == 0, "the key in user %u's keyring outlived the sweep",
                  (unsigned)uid);
    }
    unlink(list);
    remove_scratch(dir);
}

/* The jail's user may make no POSIX message queue (RLIMIT_MSGQUEUE 0, tests/jail/jail.h): a
 * queue outlives its maker and no sweep could list it without mounting its file system. This
 * test's own binary, copied where the user can run it, probes for it under warden run --drop:
 * mq_open with O_CREAT must fail. Root only. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED_BY_CLANG 1
#endif
#endif
#ifndef SANITIZED_BY_CLANG
#define SANITIZED_BY_CLANG 0
#endif
static const char *mq_probe_env = "DPS_WARDEN_MQ_PROBE";
__attribute__((constructor)) static void mq_probe(void)
{
    const char *name = getenv(mq_probe_env);
    if (!name)
        return;
    mqd_t q = mq_open(name, O_CREAT | O_RDWR, 0600, NULL);
    if (q != (mqd_t)-1) {
        mq_close(q);
        mq_unlink(name);
        _exit(10); /* it made one */
    }
    _exit(errno == EMFILE ? 11 : 12); /* the limit refused it, or something else did */
}

Test(warden, the_jail_user_can_make_no_posix_message_queue, .timeout = 30)
{
    if (geteuid() != 0)
        cr_skip_test("dropping to the jail's user needs root: run make test as root");
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || SANITIZED_BY_CLANG
    cr_skip_test("the probe is this sanitized binary, whose shadow memory cannot fit in the "
                 "jail's address-space limit (JAIL_AS): make test without SANITIZE runs it");
#endif
    static Run r;
    char dir[64], probe[96], self[4096], name[64], spec[64], cmd[8300];
    scratch(dir, sizeof dir);
    cr_assert(chmod(dir, 0755) == 0);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    cr_assert(n > 0);
    self[n] = 0;
    snprintf(probe, sizeof probe, "%s/probe", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' %s && chmod 755 %s", self, probe, probe);
    cr_assert(system(cmd) == 0, "could not copy the test binary to %s", probe);
    snprintf(name, sizeof name, "/dps-warden-mq-%d", (int)getpid());
    uid_t uid = (uid_t)(2000000000u + (unsigned)getpid() % 100000u);
    snprintf(spec, sizeof spec, "%u:%u", (unsigned)uid, (unsigned)uid);
    setenv(mq_probe_env, name, 1);
    run_program((char *[]){WARDEN, "run", "--timeout", "20", "--drop", spec, "--", probe, NULL},
                &r);
    unsetenv(mq_probe_env);
    mq_unlink(name);
    cr_expect(r.status == 11, "the jail's user %s (status %d: 10 made one, 12 refused for "
              "another reason than the limit; %s)", r.status == 10 ? "made a message queue" :
              "was not refused by RLIMIT_MSGQUEUE", r.status, r.err);
    remove_scratch(dir);
}
