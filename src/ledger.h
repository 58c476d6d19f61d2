/*
 * ledger.h: where the GPU time went. Every second a GPU is observed goes
 * to exactly one cause (enum ledger_cause), so the causes sum to the
 * GPU-seconds observed, per GPU and for the run; with it, what removing a
 * cause would gain: a step-time speedup bound for the input wait and the
 * held-down clocks, GPU-hours back for the others. Part of the analysis:
 * diag.c feeds it, per record and GPU, a point of figures the analysis
 * measured and the verdicts the rules gave (ledger.c says how a second is
 * classified); commands render it.
 */
#ifndef GPUMON_LEDGER_H
#define GPUMON_LEDGER_H

#include <stdbool.h>
#include "util.h"

/* X(ID, key, label, speedup, gain): the causes, in the order they are shown. speedup: removing it
 * makes steps faster (its gain is a speedup bound); else its gain is GPU time back. */
#define LEDGER_CAUSES(X) \
    X(LC_COMPUTE, "compute", "compute", false, NULL) \
    X(LC_INPUT_WAIT, "input_wait", "input wait", true, "if the input kept up") \
    X(LC_THROTTLED, "throttled", "throttled", true, "at full clocks") \
    X(LC_STARTUP, "startup", "startup", false, "if the job started working at once") \
    X(LC_PAUSE, "pause", "pause", false, "without the pauses (checkpoints, evaluation, epoch starts)") \
    X(LC_STALLED, "stalled", "stalled", false, "if the stall were caught at once") \
    X(LC_IDLE, "idle", "idle", false, "if the idle GPUs were given back") \
    X(LC_LOST, "lost", "lost", false, "without the lost GPUs")

enum ledger_cause {
#define LEDGER_ENUM(id, ...) id,
    LEDGER_CAUSES(LEDGER_ENUM)
#undef LEDGER_ENUM
    LC_COUNT
};

struct ledger_cause_info {
    const char *key, *label;
    bool speedup;
    const char *gain;
};
extern const struct ledger_cause_info ledger_causes[LC_COUNT];

/* The thresholds the ledger shares with the rules (rules.h's table fills them). */
struct ledger_config {
    double pause_s;      /* an idle stretch between busy ones this long is a pause (the pause rule's) */
    double pause_apart_s;   /* ... an isolated one when it came this long after the previous one (or the first
                             * record): the rules' pause (rules_stop_is_pause), which no input verdict takes */
    double stall_s;      /* idle this long while holding memory: stalled (the stalled rule's) */
    double sustain_s;    /* busy this long without a break: the job's first sustained work (start-up ends) */
    double horizon_s;    /* how long an input verdict may take to speak after its evidence: idle time
                          * stays undecided that long (the window and the start-up) */
};

/* One GPU at one record, as the analysis measured it and the rules judged it. */
struct ledger_point {
    double t;            /* record time, s */
    bool lost;           /* the GPU fell off the bus */
    double idle;         /* share of the interval the GPU was idle, 0-1; NAN unknown */
    bool mem_held;       /* memory held or processes on the GPU (the stalled rule's mem_held) */
    bool job;            /* a job is known to run for this GPU: gpumon run's, or memory used on it */
    double clock_ratio;  /* SM clock / its maximum; NAN unknown */
    bool clock_held;     /* a thermal or power clock event reason is active */
    double wait_s;       /* the loop's input wait in the interval (its steps on this GPU); NAN: no steps */
    double loop_s;       /* the loop's time in it, waiting and computing (with wait_s) */
    double steps;        /* steps its processes ended in the interval */
    double sm_active, tensor;   /* GPM, %; NAN none */
    double energy_j;     /* the energy counter, J; NAN none */
    bool input_verdict;  /* an input verdict (input-bound, input-wait...) holds on this GPU */
    bool idle_by_design; /* every process on it is a notebook's kernel, or every one an inference server: a long
                          * stop holding memory is idle (notebook-idle, server-idle), not stalled */
    bool progress;       /* idle, its memory grew enough to be progress (the stalled rule's clock starts again) */
    bool allocating;     /* the job's start-up still allocates (rules_allocating): not yet sustained work */
};

/* A ledger's seconds, of one GPU or of the run. */
struct ledger_totals {
    unsigned gpus;
    double gpu_seconds;          /* observed */
    double s[LC_COUNT];
    double pending;              /* observed but not yet decided (0 after ledger_finish) */
    double gpm_s, sm_s, tensor_s;   /* compute seconds with GPM, and activity x those seconds */
    double energy_j, steps;      /* energy over the observed time; steps (NAN: none reported) */
    double loop_s, loop_wait_s;  /* the job's loop: its time waiting and computing, and waiting (step timing) */
};

struct ledger;

struct ledger *ledger_new(const struct ledger_config *c);
void ledger_free(struct ledger *l);
/* Adds GPU gpu's point (gpu: the analysis' slot, 0, 1, ...; points in time order). The interval since
 * its previous point is classified; the first point only starts the observation. */
void ledger_feed(struct ledger *l, unsigned gpu, const struct ledger_point *p);
/* The interval GPU gpu's point at time t will close (0 for its first). */
double ledger_interval(const struct ledger *l, unsigned gpu, double t);
/* The steps the whole job ended in a record (the run's energy per step: a process on every GPU is
 * counted once). */
void ledger_steps(struct ledger *l, double steps);
/* Decides what is still undecided (the end of the run). */
void ledger_finish(struct ledger *l);
unsigned ledger_ngpus(const struct ledger *l);
/* GPU gpu's totals; the run's: every GPU summed. */
void ledger_gpu(const struct ledger *l, unsigned gpu, struct ledger_totals *out);
void ledger_run(const struct ledger *l, struct ledger_totals *out);
/* The step-time speedup bound of removing cause c (a speedup cause): 1 / (1 - its share of the loop's
 * time). The input wait's share is the loop's own (step timing) where the job reports steps, else its
 * share of the GPU's time in the job (compute, input wait, throttled), as the held clocks' is; NAN for
 * the other causes or without that time. */
double ledger_speedup(const struct ledger_totals *t, enum ledger_cause c);
/* The cause that took most of GPU gpu's last window (seconds decided or pending), for gpumon top. */
enum ledger_cause ledger_recent_cause(const struct ledger *l, unsigned gpu);

/* The ledger as text lines ("  input wait   31.2 GPU-h  39%  steps up to 1.64x faster if the input kept
 * up"), under a heading naming what (e.g. "8 GPUs"); cost_per_hour > 0 adds money. */
void ledger_text(const struct ledger_totals *t, const char *what, double cost_per_hour, struct sbuf *b);
/* The JSON object {"gpu_seconds":..,"seconds":{..},"gain":{..}[,"cost":{..}],...} (docs/schemas.md). */
void ledger_json(const struct ledger_totals *t, double cost_per_hour, struct sbuf *b);

#endif
