/*
 * steps.h: the receiving end of the step channel (docs/steps-channel.md).
 *
 * `gpumon run` owns a private directory; each training process that
 * records steps maps a ring file of its own there and writes an entry at
 * each phase change (waiting for input, computing, out of the loop).
 * steps_fill() drains every ring and puts into the record, per process,
 * the steps that ended since the previous record and the time spent in
 * each phase, cut exactly at the record's time. Nothing here blocks or
 * can be made to fail by what a job writes: a bad file or entry is
 * counted and skipped.
 */
#ifndef GPUMON_STEPS_H
#define GPUMON_STEPS_H

#include <stddef.h>
#include <stdint.h>
#include "record.h"

struct steps;

/* Opens the channel: dir NULL makes a private directory (under
 * $XDG_RUNTIME_DIR, $TMPDIR or /tmp; removed by steps_close), else uses
 * dir, which must be a directory of this user not writable by others (it
 * is left in place). Returns 0, or -1 with a message. */
int steps_open(struct steps **out, const char *dir, char *err, size_t errlen);
/* The directory to pass to the job in GPUMON_STEPS. */
const char *steps_dir(const struct steps *s);
/* Reads every ring up to now_ns (CLOCK_MONOTONIC) and sets r->ranks and
 * r->nranks (storage owned by s, valid until the next call). */
void steps_fill(struct steps *s, struct record *r, uint64_t now_ns);
/* Sets how many seconds of the records' time one second of the job's clock
 * is: 1 (the default), or the simulator's speed when it fast-plays its
 * scenario (nvml_clock_speed), so that the job's step and phase times share
 * the records' time axis. */
void steps_set_speed(struct steps *s, double speed);
/* One line on what the channel saw ("2 processes, 4,210 steps; 3 entries dropped ..."), for the end of a run. */
void steps_describe(const struct steps *s, char *buf, size_t len);
/* Steps the job's processes reported so far, all of them together. */
unsigned long long steps_reported(const struct steps *s);
void steps_close(struct steps *s);

#endif
