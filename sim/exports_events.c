/*
 * exports_events.c: the event-set API (create, supported types, register,
 * wait, free).
 *
 * Event sets are static slots in sim_state (SIM_MAX_SETS of them), so a
 * set handle is a stable address that can be validated. Registering a
 * device records a cursor at the current scenario time; only faults after
 * it are delivered ("nothing from before registration"). Scenario "xid N"
 * faults become XidCriticalError events with eventData N, and a GPU that
 * falls off the bus raises Xid 79 at that moment and nothing after it.
 * Wait pumps due events into the set's queue (time-ordered, oldest dropped
 * past SIM_SET_QUEUE) and returns the oldest at once; otherwise it sleeps
 * WITHOUT the mutex until the next event is due or timeoutms passes (10
 * TIMEOUT), looking again at least every 250 ms, so a waiting client wakes
 * about as often as on a driver, which blocks in the kernel (it was 20 ms
 * slices: 50 wake-ups a second that every gpumon command paid). GI/CI ids are 0xFFFFFFFF (no MIG).
 */
#include "sim_exports.h"

#include <string.h>

#define EVENTS_XID_LOST 79u
#define EVENTS_SLICE_US 250000LL   /* at most this between looks (a driver blocks until an event) */

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!set)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < SIM_MAX_SETS; i++) {
        if (sim_state.sets[i].used)
            continue;
        memset(&sim_state.sets[i], 0, sizeof(sim_state.sets[i]));
        sim_state.sets[i].used = 1;
        *set = &sim_state.sets[i];
        return sim_leave(NVML_SUCCESS);
    }
    return sim_leave(NVML_ERROR_MEMORY);
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    struct nvmlEventSet_st *s;
    nvmlReturn_t rc = sim_enter(__func__);

    if (rc != NVML_SUCCESS)
        return rc;
    s = sim_state_set(set);
    if (!s)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    memset(s, 0, sizeof(*s));
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_EVENTS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!eventTypes)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *eventTypes = SIM_SUPPORTED_EVENTS;
    return sim_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set)
{
    struct nvmlEventSet_st *s;
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_EVENTS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    s = sim_state_set(set);
    if (!s)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    if (eventTypes & ~(unsigned long long)SIM_SUPPORTED_EVENTS)
        return sim_leave(NVML_ERROR_NOT_SUPPORTED);
    if (s->regs[gpu].mask == 0)
        s->regs[gpu].cursor_us = now;
    s->regs[gpu].mask |= eventTypes;
    return sim_leave(NVML_SUCCESS);
}

/* Inserts ev keeping the queue ordered by time; drops the oldest when full. */
static void events_push(struct nvmlEventSet_st *s, const struct sim_event *ev)
{
    size_t j;

    if (s->len == SIM_SET_QUEUE) {
        memmove(&s->queue[0], &s->queue[1], (SIM_SET_QUEUE - 1) * sizeof(s->queue[0]));
        s->len--;
    }
    j = s->len;
    while (j > 0 && s->queue[j - 1].t_us > ev->t_us)
        j--;
    memmove(&s->queue[j + 1], &s->queue[j], (s->len - j) * sizeof(s->queue[0]));
    s->queue[j] = *ev;
    s->len++;
}

/*
 * With the mutex held: queues the events due in (cursor, now] of every
 * registration and returns the scenario time of the next one not yet due
 * (or -1 if there is none).
 */
static long long events_pump(struct nvmlEventSet_st *s, long long now)
{
    long long next = -1;

    for (unsigned int gpu = 0; gpu < sim_state.sc->ngpus; gpu++) {
        struct sim_registration *r = &s->regs[gpu];
        const struct sim_gpu *g = &sim_state.sc->gpus[gpu];
        if (!(r->mask & nvmlEventTypeXidCriticalError))
            continue;
        for (size_t i = 0; i < g->nfaults; i++) {
            const struct sim_fault *f = &g->faults[i];
            struct sim_event ev;
            if (f->kind != SIM_FAULT_XID && f->kind != SIM_FAULT_LOST)
                continue;
            if (f->t_us > now) {
                if (next < 0 || f->t_us < next)
                    next = f->t_us;
                break;
            }
            if (f->t_us > r->cursor_us) {
                ev.t_us = f->t_us;
                ev.gpu = gpu;
                ev.type = nvmlEventTypeXidCriticalError;
                ev.data = f->kind == SIM_FAULT_LOST ? EVENTS_XID_LOST : f->xid;
                events_push(s, &ev);
            }
            if (f->kind == SIM_FAULT_LOST)
                break;                    /* a lost GPU reports nothing more */
        }
        r->cursor_us = now;
    }
    return next;
}

static nvmlReturn_t events_wait(const char *func, nvmlEventSet_t set, struct sim_event *out, int *have,
                                unsigned int timeoutms)
{
    long long deadline = sim_state_mono_us() + (long long)timeoutms * 1000LL;

    *have = 0;
    for (;;) {
        struct nvmlEventSet_st *s;
        long long now, next, sleep_us, left;
        double speed;
        nvmlReturn_t rc = sim_enter(func);

        if (rc != NVML_SUCCESS)
            return rc;
        s = sim_state_set(set);
        if (!s)
            return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
        now = sim_state_now_us();
        next = events_pump(s, now);
        if (s->len > 0) {
            *out = s->queue[0];
            memmove(&s->queue[0], &s->queue[1], (s->len - 1) * sizeof(s->queue[0]));
            s->len--;
            *have = 1;
            return sim_leave(NVML_SUCCESS);
        }
        speed = sim_state.speed;
        sim_leave(NVML_SUCCESS);
        left = deadline - sim_state_mono_us();
        if (left <= 0)
            return NVML_ERROR_TIMEOUT;
        sleep_us = left < EVENTS_SLICE_US ? left : EVENTS_SLICE_US;
        if (next >= 0 && speed > 0) {
            long long due = (long long)((double)(next - now) / speed) + 1;
            if (due < sleep_us)
                sleep_us = due;
        }
        sim_state_sleep_us(sleep_us);
    }
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    struct sim_event ev;
    nvmlEventData_t d;
    nvmlReturn_t rc;
    int have;

    if (!data) {
        rc = sim_enter(__func__);
        return rc != NVML_SUCCESS ? rc : sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    }
    rc = events_wait(__func__, set, &ev, &have, timeoutms);
    if (rc != NVML_SUCCESS || !have)
        return rc;
    memset(&d, 0, sizeof(d));
    d.device = &sim_devices[ev.gpu];
    d.eventType = ev.type;
    d.eventData = ev.data;
    d.gpuInstanceId = 0xFFFFFFFFu;
    d.computeInstanceId = 0xFFFFFFFFu;
    memcpy(data, &d, sizeof(d));
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_legacy_t *data, unsigned int timeoutms)
{
    struct sim_event ev;
    nvmlEventData_legacy_t d;
    nvmlReturn_t rc;
    int have;

    if (!data) {
        rc = sim_enter(__func__);
        return rc != NVML_SUCCESS ? rc : sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    }
    rc = events_wait(__func__, set, &ev, &have, timeoutms);
    if (rc != NVML_SUCCESS || !have)
        return rc;
    memset(&d, 0, sizeof(d));
    d.device = &sim_devices[ev.gpu];
    d.eventType = ev.type;
    d.eventData = ev.data;
    memcpy(data, &d, sizeof(d));
    return NVML_SUCCESS;
}
