/*
 * fuzz_scenario.c: the simulated NVML's scenario parser, on the same entry
 * point sim_scenario_load uses after reading a file (sim_scenario_parse_text),
 * with the input given by length and not NUL-terminated, so a read past the
 * end is an ASan report. trace(FILE) resolves against fuzz/fixtures, which
 * holds a trace.csv. A scenario that loads is then checked against the
 * header's promises (every array within its SIM_MAX_* bound, faults sorted
 * by time) and every signal is evaluated at a few times, as the model would,
 * so UBSan sees the arithmetic too; a refusal must come with a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include "fuzz_util.h"
#include "sim_scenario.h"
#include "sim_signal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_util_quiet();
    return 0;
}

static void fuzz_scenario_check(const struct sim_scenario *sc)
{
    static const long long times_us[] = {0, 1500000, 3600000000LL, 999999999000000LL};
    if (sc->ngpus > SIM_MAX_GPUS || sc->ntraces > SIM_MAX_TRACES)
        abort();
    for (unsigned i = 0; i < sc->ngpus; i++) {
        const struct sim_gpu *g = &sc->gpus[i];
        if (g->nprocs > SIM_MAX_PROCS || g->nfaults > SIM_MAX_FAULTS)
            abort();
        for (size_t f = 1; f < g->nfaults; f++)
            if (g->faults[f - 1].t_us > g->faults[f].t_us)
                abort();
        for (int m = 0; m < SIM_M_COUNT; m++) {
            if (g->sig[m].nterms < 0 || g->sig[m].nterms > SIM_MAX_TERMS)
                abort();
            for (size_t t = 0; t < sizeof times_us / sizeof times_us[0]; t++)
                (void)sim_signal_eval(&g->sig[m], sc->seed, i, (unsigned)m, times_us[t],
                                      sc->sample_period_ms * 1000LL);
        }
        for (size_t p = 0; p < g->nprocs; p++)
            (void)sim_signal_eval(&g->procs[p].memory, sc->seed, i, 1000 + (unsigned)p, times_us[1], 1000);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    struct sim_scenario *sc = sim_scenario_parse_text((const char *)data, size, "<fuzz>", FUZZ_FIXTURES, err,
                                                      sizeof err);
    if (!sc) {
        if (!err[0])
            fuzz_util_die("fuzz_scenario: refused without a message");
        return 0;
    }
    fuzz_scenario_check(sc);
    sim_scenario_free(sc);
    return 0;
}
