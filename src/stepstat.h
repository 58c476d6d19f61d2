/*
 * stepstat.h: the training steps a job reported (record.h's ranks), per
 * process, over the analysis window and over the whole run: steps per
 * second, step time percentiles, the share of time the loop waited for its
 * input. Part of the analysis (analyze.c owns one): figures only.
 *
 * Each process is tied to a GPU: the GPU whose process list holds its pid;
 * failing that, in a job of several processes, the GPU at its LOCAL_RANK
 * (torchrun's convention); failing that (one process, its pid not visible,
 * as in a container with its own PID namespace) every GPU of the record.
 * Up to 4,096 processes of a run are followed; one gone for a window keeps
 * only its whole-run figures.
 */
#ifndef GPUMON_STEPSTAT_H
#define GPUMON_STEPSTAT_H

#include <stdbool.h>
#include "record.h"

#define STEPSTAT_ALL_GPUS (-1)

struct stepstat_fig {
    double steps;                 /* steps ended */
    double rate;                  /* steps per second of training: of in_wait_s + in_compute_s */
    double step_mean, p50, p95;   /* seconds, over steps with a known wait; NAN none */
    double wait_mean;             /* seconds of input wait per step; NAN none */
    double wait_share;            /* % of loop time (waiting + computing) spent waiting; NAN none */
    double in_wait_s, in_compute_s;
    unsigned long long waited;
};

struct stepstat_rank {
    int pid, rank, local_rank, world, gpu;   /* gpu: index, or STEPSTAT_ALL_GPUS */
    uint8_t phase;
    bool current;                  /* listed in the latest record */
    unsigned long long dropped, bad;
    double first_t, last_t;
    struct stepstat_fig win, run;  /* the window's, the whole run's */
};

struct stepstat;

struct stepstat *stepstat_new(double window_s);
void stepstat_free(struct stepstat *ss);
/* Adds a record's ranks (t: its time, seconds since the epoch). */
void stepstat_feed(struct stepstat *ss, const struct record *r, double t);
unsigned stepstat_nranks(const struct stepstat *ss);
/* The i-th process seen, its figures at time now. */
void stepstat_rank(const struct stepstat *ss, unsigned i, double now, struct stepstat_rank *out);
/* The window's figures of the processes on GPU gpu (index), merged; false if none reported steps. */
bool stepstat_gpu(const struct stepstat *ss, unsigned gpu, double now, struct stepstat_fig *out);
/* The latest record's figures for GPU gpu, summed over its processes (steps, waited, in_wait_s,
 * in_compute_s, step_mean, wait_mean; rate here per second of the record's interval); false if none
 * reported. */
bool stepstat_latest(const struct stepstat *ss, unsigned gpu, struct stepstat_fig *out);
/* Which processes are on GPU gpu in the latest record, as a number that changes when the set does. */
unsigned long long stepstat_gpu_set(const struct stepstat *ss, unsigned gpu);

#endif
