/* Hidden tests of exercise 7.3, fsdp_schedule: the exact schedule for every model of up to
 * 300 layers against a reference written here, every buffer too short, no layers or a
 * negative count, and a model whose 9L - 3 events do not fit an int (not in the students'
 * handout). */
#include <limits.h>
#include <sys/mman.h>

#include "ch7.h"
#include "ch7/fsdp_events.h"
#include "helpers.h"

#define MAX_L 300
#define ROOM (9 * MAX_L + 64)

static void add(FsdpEvent *e, int *n, FsdpOp op, int layer)
{
    e[(*n)++] = (FsdpEvent){op, layer};
}

/* The schedule written in blocks: the first gather; for each layer but the last, the next
 * one's gather and this one's wait, forward and free; the last layer's wait and forward.
 * Then the last layer's backward block (with the prefetch of the one below when there is
 * one), the middle layers' blocks of five, and layer 0's block without a gather. */
static int reference(int L, FsdpEvent *e)
{
    int n = 0;
    add(e, &n, FSDP_GATHER, 0);
    for (int l = 0; l < L - 1; l++) {
        add(e, &n, FSDP_GATHER, l + 1);
        add(e, &n, FSDP_WAIT, l);
        add(e, &n, FSDP_FORWARD, l);
        add(e, &n, FSDP_FREE, l);
    }
    add(e, &n, FSDP_WAIT, L - 1);
    add(e, &n, FSDP_FORWARD, L - 1);
    if (L > 1)
        add(e, &n, FSDP_GATHER, L - 2);
    add(e, &n, FSDP_BACKWARD, L - 1);
    add(e, &n, FSDP_SCATTER, L - 1);
    add(e, &n, FSDP_FREE, L - 1);
    for (int l = L - 2; l >= 1; l--) {
        add(e, &n, FSDP_GATHER, l - 1);
        add(e, &n, FSDP_WAIT, l);
        add(e, &n, FSDP_BACKWARD, l);
        add(e, &n, FSDP_SCATTER, l);
        add(e, &n, FSDP_FREE, l);
    }
    if (L > 1) {
        add(e, &n, FSDP_WAIT, 0);
        add(e, &n, FSDP_BACKWARD, 0);
        add(e, &n, FSDP_SCATTER, 0);
        add(e, &n, FSDP_FREE, 0);
    }
    return n;
}

/* Every model of 1 to 300 layers, event by event, with more room than the schedule needs
 * (40 events more for odd L, the whole buffer for even L). */
Test(hidden_fsdp_schedule, exactly_the_rule_for_up_to_300_layers)
{
    static FsdpEvent ev[ROOM], want[ROOM];
    for (int L = 1; L <= MAX_L; L++) {
        int n = reference(L, want), max = L % 2 ? 9 * L + 40 : ROOM;
        cr_assert(n == 9 * L - 3, "the test's reference is wrong for %d layers", L);
        fill_guards(ev, ROOM);
        int got = fsdp_schedule(L, ev, max);
        cr_assert(got == n, "L = %d, room for %d events: returned %d, expected %d", L, max,
                  got, n);
        for (int i = 0; i < n; i++) {
            char a[32], b[32], before[32] = "none";
            if (i > 0)
                event_text(ev[i - 1], before, sizeof before);
            cr_assert(ev[i].op == want[i].op && ev[i].layer == want[i].layer,
                      "L = %d, event %d (after %s): got %s, expected %s", L, i, before,
                      event_text(ev[i], a, sizeof a), event_text(want[i], b, sizeof b));
        }
    }
}

/* For models of 1 to 12 layers, a buffer of exactly 9L - 3 events is scheduled, and every
 * shorter one, down to no room at all and a negative max, is refused without a write at or
 * past ev[max]. */
Test(hidden_fsdp_schedule, every_short_buffer_is_refused_untouched)
{
    FsdpEvent ev[128];
    for (int L = 1; L <= 12; L++) {
        int need = 9 * L - 3;
        fill_guards(ev, 128);
        int got = fsdp_schedule(L, ev, need);
        cr_assert(got == need, "L = %d, room for exactly %d events: returned %d, expected %d",
                  L, need, got, need);
        for (int max = need - 1; max >= -2; max--) {
            fill_guards(ev, 128);
            got = fsdp_schedule(L, ev, max);
            cr_assert(got == -1, "L = %d (%d events), max %d: returned %d, expected -1", L,
                      need, max, got);
            for (int i = max < 0 ? 0 : max; i < 128; i++)
                cr_assert(is_guard(ev[i]), "L = %d, max %d (too small, refused): wrote "
                          "ev[%d], at or past ev[max]", L, max, i);
        }
    }
}

/* No layers, or a negative count: 0 events, whatever max (0 events always fit, even in no
 * room), and nothing written. */
Test(hidden_fsdp_schedule, no_layers_means_no_events)
{
    int counts[] = {0, -1, -9, INT_MIN}, maxes[] = {16, 1, 0};
    for (int c = 0; c < 4; c++)
        for (int m = 0; m < 3; m++) {
            FsdpEvent ev[16];
            fill_guards(ev, 16);
            int got = fsdp_schedule(counts[c], ev, maxes[m]);
            cr_assert(got == 0, "n_layers %d, max %d: returned %d, expected 0 events",
                      counts[c], maxes[m], got);
            for (int i = 0; i < 16; i++)
                cr_assert(is_guard(ev[i]), "n_layers %d, max %d: wrote ev[%d], expected no "
                          "events", counts[c], maxes[m], i);
        }
}

/* Beyond 238,609,294 layers the schedule's 9L - 3 events are more than INT_MAX, so no int
 * max is enough and the answer is -1; 9L - 3 computed in int overflows instead (to a
 * negative number at 238,609,295 layers) and lets the schedule run off the end of ev. The
 * call runs in a child process, so that such a run is reported here rather than crashing
 * the test. */
Test(hidden_fsdp_schedule, a_model_too_large_for_an_int_is_refused)
{
    FsdpEvent small[15];
    int got = fsdp_schedule(2, small, 15);
    cr_assert(got == 15, "L = 2, room for 15 events: returned %d, expected 15", got);
    int L = 238609295, max = 64;
    int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(shared != MAP_FAILED, "mmap failed");
    shared[0] = 12345, shared[1] = 0;
    pid_t test = getpid(), pid = fork();
    cr_assert(pid >= 0, "fork failed");
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != test)
            _exit(1);
        alarm(5); /* a schedule that does not stop is ended here */
        FsdpEvent *ev = malloc((size_t)(max + 1) * sizeof *ev);
        if (!ev)
            _exit(1);
        fill_guards(ev, max + 1);
        shared[0] = fsdp_schedule(L, ev, max);
        shared[1] = !is_guard(ev[max]);
        _exit(0);
    }
    int status = 0;
    cr_assert(waitpid(pid, &status, 0) == pid, "waitpid failed");
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "L = %d (%lld events, more "
              "than INT_MAX), max %d: the call %s %d (does 9L - 3 overflow an int?)", L,
              9LL * L - 3, max, sig ? "was killed by signal" : "exited with",
              sig ? sig : WEXITSTATUS(status));
    got = shared[0];
    int wrote = shared[1];
    munmap(shared, 4096);
    cr_assert(got == -1, "L = %d (%lld events, more than INT_MAX), max %d: returned %d, "
              "expected -1", L, 9LL * L - 3, max, got);
    cr_assert(!wrote, "L = %d, max %d: wrote ev[%d], past ev[max - 1]", L, max, max);
}
