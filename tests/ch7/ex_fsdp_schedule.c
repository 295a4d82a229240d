/* Tests of exercise 7.3, fsdp_schedule: the schedules of 1, 2 and 3 layers worked by hand,
 * then, for up to 64 layers, a simulation of what the schedule gathers, waits for and frees,
 * and a buffer one event short. */
#include "ch7.h"
#include "fsdp_events.h"
#include "helpers.h"

#define MAX_L 64
#define ROOM (9 * MAX_L + 16)

/* The first @p n events, separated by spaces (what a failure message shows). */
static const char *events_text(const FsdpEvent *ev, int n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 16 < cap; i++) {
        char one[32];
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? " " : "",
                                 event_text(ev[i], one, sizeof one));
    }
    return buf;
}

static void expect(int L, const FsdpEvent *want, int n)
{
    FsdpEvent ev[ROOM];
    char got_s[512], want_s[512], a[32], b[32];
    for (int i = 0; i < ROOM; i++)
        ev[i] = GUARD;
    int got = fsdp_schedule(L, ev, ROOM);
    cr_assert(got == n, "L = %d (room for %d events): returned %d, expected %d events: %s",
              L, ROOM, got, n, events_text(want, n, want_s, sizeof want_s));
    for (int i = 0; i < n; i++)
        cr_assert(ev[i].op == want[i].op && ev[i].layer == want[i].layer,
                  "L = %d, event %d: got %s, expected %s\n  got:      %s\n  expected: %s", L,
                  i, event_text(ev[i], a, sizeof a), event_text(want[i], b, sizeof b),
                  events_text(ev, n, got_s, sizeof got_s),
                  events_text(want, n, want_s, sizeof want_s));
}

#define G(l) {FSDP_GATHER, l}
#define W(l) {FSDP_WAIT, l}
#define F(l) {FSDP_FORWARD, l}
#define B(l) {FSDP_BACKWARD, l}
#define S(l) {FSDP_SCATTER, l}
#define Fr(l) {FSDP_FREE, l}

/* Worked by hand from the rules: the last layer's parameters stay from its forward to its
 * backward, and every other gather is issued one layer ahead, before the wait. */
Test(ex_fsdp_schedule, hand_worked_one_two_three_layers)
{
    expect(1, (FsdpEvent[]){G(0), W(0), F(0), B(0), S(0), Fr(0)}, 6);
    expect(2, (FsdpEvent[]){G(0), G(1), W(0), F(0), Fr(0), W(1), F(1),
                            G(0), B(1), S(1), Fr(1), W(0), B(0), S(0), Fr(0)}, 15);
    expect(3, (FsdpEvent[]){G(0), G(1), W(0), F(0), Fr(0), G(2), W(1), F(1), Fr(1), W(2), F(2),
                            G(1), B(2), S(2), Fr(2), G(0), W(1), B(1), S(1), Fr(1),
                            W(0), B(0), S(0), Fr(0)}, 24);
}

/* A layer's parameters: not there, being gathered (issued, not waited for), or there. */
enum { ABSENT, IN_FLIGHT, READY };

/* Run the schedule of L layers on a model of the GPU's memory and fail at its first event
 * that FSDP could not run, or that breaks what prefetching promises. */
static void simulate(int L, const FsdpEvent *ev, int n)
{
    int state[MAX_L] = {0}, used[MAX_L] = {0}, gathered_at[MAX_L], backward_done[MAX_L] = {0};
    int scattered[MAX_L] = {0}, next_forward = 0, next_backward = L - 1, held = 0;
    char window[512], e[32];
    for (int i = 0; i < n; i++) {
        int l = ev[i].layer, from = i < 12 ? 0 : i - 12;
        event_text(ev[i], e, sizeof e);
        int k = snprintf(window, sizeof window, "events %d to %d: ", from, i);
        events_text(ev + from, i - from + 1, window + k, sizeof window - (size_t)k);
        const char *s = window;
        cr_assert(l >= 0 && l < L && (int)ev[i].op >= 0 && (int)ev[i].op <= FSDP_FREE,
                  "L = %d, event %d (%s): no such operation or layer\n  %s", L, i, e, s);
        switch (ev[i].op) {
        case FSDP_GATHER:
            cr_assert(state[l] == ABSENT, "L = %d, event %d (%s): layer %d's parameters are "
                      "already there (gathered at event %d)\n  %s", L, i, e, l, gathered_at[l], s);
            cr_assert(next_forward < L || l < L - 1, "L = %d, event %d (%s): the last layer "
                      "is gathered again for backward; its parameters are kept\n  %s", L, i, e,
                      s);
            state[l] = IN_FLIGHT, used[l] = 0, gathered_at[l] = i;
            cr_assert(++held <= 2, "L = %d, event %d (%s): %d layers' parameters gathered at "
                      "once; one layer of prefetch needs at most 2\n  %s", L, i, e, held, s);
            break;
        case FSDP_WAIT:
            cr_assert(state[l] == IN_FLIGHT, "L = %d, event %d (%s): waits for layer %d, "
                      "whose gather is not in flight\n  %s", L, i, e, l, s);
            state[l] = READY;
            if (next_forward < L ? l + 1 < L : l > 0) {
                int next = next_forward < L ? l + 1 : l - 1;
                cr_assert(state[next] != ABSENT, "L = %d, event %d (%s): waits for layer %d "
                          "before issuing the gather of layer %d (the prefetch comes first)\n"
                          "  %s", L, i, e, l, next, s);
            }
            break;
        case FSDP_FORWARD:
        case FSDP_BACKWARD: {
            int fwd = ev[i].op == FSDP_FORWARD, want = fwd ? next_forward : next_backward;
            cr_assert(fwd || next_forward == L, "L = %d, event %d (%s): backward before the "
                      "forward of layer %d\n  %s", L, i, e, next_forward, s);
            cr_assert(l == want, "L = %d, event %d (%s): expected the %s of layer %d here "
                      "(forward goes from layer 0 up, backward from the last down)\n  %s", L, i,
                      e, fwd ? "forward" : "backward", want, s);
            cr_assert(state[l] == READY, "L = %d, event %d (%s): layer %d's parameters are "
                      "%s\n  %s", L, i, e, l, state[l] == ABSENT ? "not gathered"
                      : "still being gathered (no WAIT)", s);
            int next = fwd ? l + 1 : l - 1;
            cr_assert(next < 0 || next >= L || state[next] != ABSENT, "L = %d, event %d (%s): "
                      "layer %d's gather is not in flight while layer %d computes (no "
                      "prefetch)\n  %s", L, i, e, next, l, s);
            used[l] = 1;
            if (fwd)
                next_forward++;
            else
                backward_done[l] = 1, next_backward--;
            break;
        }
        case FSDP_SCATTER:
            cr_assert(backward_done[l] && !scattered[l], "L = %d, event %d (%s): layer %d's "
                      "gradients are reduce-scattered %s\n  %s", L, i, e, l,
                      scattered[l] ? "twice" : "before its backward", s);
            scattered[l] = 1;
            break;
        case FSDP_FREE:
            cr_assert(state[l] == READY && used[l], "L = %d, event %d (%s): frees layer %d's "
                      "parameters %s\n  %s", L, i, e, l, state[l] == ABSENT ? "which are not "
                      "there" : state[l] == IN_FLIGHT ? "while they are being gathered"
                      : "before computing with them", s);
            cr_assert(!(l == L - 1 && next_forward == L && !backward_done[l]), "L = %d, "
                      "event %d (%s): the last layer's parameters are freed between its "
                      "forward and its backward; they are kept\n  %s", L, i, e, s);
            state[l] = ABSENT, held--;
            break;
        }
    }
    for (int l = 0; l < L; l++) {
        cr_assert(state[l] == ABSENT, "L = %d: layer %d's parameters are never freed", L, l);
        cr_assert(scattered[l], "L = %d: layer %d's gradients are never reduce-scattered "
                  "(or its backward never runs)", L, l);
    }
}

/* For every L up to 64: events that FSDP can run in that order, with every gather but the
 * first issued while the layer before computes, 9L - 3 of them. */
Test(ex_fsdp_schedule, the_schedule_runs_for_up_to_64_layers)
{
    for (int L = 1; L <= MAX_L; L++) {
        FsdpEvent ev[ROOM];
        for (int i = 0; i < ROOM; i++)
            ev[i] = GUARD;
        int n = fsdp_schedule(L, ev, ROOM);
        cr_assert(n >= 0 && n <= ROOM, "L = %d, room for %d events: returned %d, expected "
                  "9L - 3 = %d events", L, ROOM, n, 9 * L - 3);
        simulate(L, ev, n);
        cr_assert(n == 9 * L - 3, "L = %d: %d events, expected 9L - 3 = %d", L, n, 9 * L - 3);
    }
}

/* A buffer of exactly 9L - 3 events is enough; one less is refused, and nothing is written
 * past it. No layers, no events. */
Test(ex_fsdp_schedule, a_buffer_one_event_short_is_refused)
{
    for (int L = 1; L <= MAX_L; L++) {
        FsdpEvent ev[ROOM];
        int need = 9 * L - 3;
        for (int i = 0; i < ROOM; i++)
            ev[i] = GUARD;
        int n = fsdp_schedule(L, ev, need);
        cr_assert(n == need, "L = %d, room for exactly %d events: returned %d, expected %d",
                  L, need, n, need);
        cr_assert(is_guard(ev[need]), "L = %d, room for %d events: wrote ev[%d]", L, need,
                  need);
        for (int i = 0; i < ROOM; i++)
            ev[i] = GUARD;
        n = fsdp_schedule(L, ev, need - 1);
        cr_assert(n == -1, "L = %d, room for %d events (one short): returned %d, expected -1",
                  L, need - 1, n);
        for (int i = need - 1; i < ROOM; i++)
            cr_assert(is_guard(ev[i]), "L = %d, room for %d events (one short): wrote ev[%d]",
                      L, need - 1, i);
    }
    FsdpEvent ev[4] = {GUARD, GUARD, GUARD, GUARD};
    int n = fsdp_schedule(0, ev, 4);
    cr_assert(n == 0 && is_guard(ev[0]), "0 layers: returned %d%s, expected 0 events", n,
              is_guard(ev[0]) ? "" : " and wrote ev[0]");
}
