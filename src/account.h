/*
 * account.h: GPU time by job and by user, over the whole run: GPU-seconds,
 * idle GPU-seconds and energy (part of the analysis; analyze.c feeds it
 * each GPU's records, diag.c and the exporter read it). A GPU's interval
 * is split evenly between the jobs it runs (from the job mapping
 * directory) and, separately, between the users of its processes; the
 * energy is the driver's energy counter's rise (power x time where the
 * counter is missing). At most ACCOUNT_MAX entries: when full, the one
 * seen least recently makes room.
 */
#ifndef GPUMON_ACCOUNT_H
#define GPUMON_ACCOUNT_H

#include <stdbool.h>
#include "record.h"

#define ACCOUNT_MAX 256

enum account_kind { ACCOUNT_JOB, ACCOUNT_USER };

struct account_entry {
    enum account_kind kind;
    char key[64];
    double gpu_s, idle_s, energy_j;    /* energy: NAN when no GPU of it reported energy or power */
    double first_t, last_t;
    unsigned ngpus;                    /* distinct GPUs it used */
    unsigned long long gpu_mask[2];    /* which (by index, up to 128) */
};

struct account;

struct account *account_new(void);
void account_free(struct account *ac);
/* One GPU's interval of dt seconds ending at t: idle share 0-1 (NAN unknown), energy in joules (NAN unknown). */
void account_add(struct account *ac, const struct record_gpu *rg, double t, double dt, double idle, double energy_j);
unsigned account_count(const struct account *ac);
/* Every entry, jobs first, each kind by GPU time, most first, into out[ACCOUNT_MAX]; returns how many. */
unsigned account_sorted(const struct account *ac, const struct account_entry **out);

#endif
