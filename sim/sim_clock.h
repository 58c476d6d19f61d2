/*
 * sim_clock.h: the scenario clock shared by the processes that play one
 * scenario (sim_clock.c). sim_state.c joins it at every 0->1 init and
 * leaves it at the final shutdown.
 */
#ifndef GPUMON_SIM_CLOCK_H
#define GPUMON_SIM_CLOCK_H

struct sim_clock_origin {
    long long origin_mono_us;    /* CLOCK_MONOTONIC at scenario time START (0 when shared) */
    long long origin_epoch_us;   /* CLOCK_REALTIME then */
    double speed;                /* scenario seconds per wall second */
};

/*
 * Fills c with the clock of scenario (a path; NULL or "" the built-in one): the shared one when a
 * process plays it already (its speed adopted unless speed_set and another), or a fresh one at speed
 * that later processes share. Returns 1 when the clock is shared (held until sim_clock_leave), 0 for
 * a private clock (the directory cannot be used, or another speed was asked for).
 */
int sim_clock_join(const char *scenario, double speed, int speed_set, struct sim_clock_origin *c);
/* Releases the lease (the last holder removes the clock file); nothing for a private clock. */
void sim_clock_leave(void);

#endif
