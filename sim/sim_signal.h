/*
 * sim_signal.h: evaluating a scenario signal at a point of scenario time.
 *
 * Pure functions: a signal (a sum of terms parsed by sim_scenario_expr.c)
 * is evaluated at a time in microseconds. noise() is deterministic: it is a
 * hash of (seed, gpu, key, time bucket), so the same seed gives identical
 * runs and one bucket (the driver sample period) gives one noise value.
 * Clamping to a metric's range is the caller's business (sim_model.c).
 */
#ifndef GPUMON_SIM_SIGNAL_H
#define GPUMON_SIM_SIGNAL_H

#include "sim_scenario.h"

/* A well-mixed 64-bit hash of its arguments (splitmix64 rounds). */
unsigned long long sim_signal_hash(unsigned long long seed, unsigned int gpu, unsigned int key,
                                   long long bucket);

/*
 * Value of sig at scenario time t_us. key tells noise streams apart (a
 * metric number, or 1000 + process index); bucket_us > 0 is the width of
 * one noise bucket. A signal without terms evaluates to 0.
 */
double sim_signal_eval(const struct sim_signal *sig, unsigned long long seed, unsigned int gpu,
                       unsigned int key, long long t_us, long long bucket_us);

#endif
