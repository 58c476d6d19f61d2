/*
 * sampler_mig.c: a GPU's MIG devices (compute instances inside GPU
 * instances), for nvidia-smi's summary table and -L. They are enumerated
 * the documented way at every call (docs/nvml-facts.md §22: slots 0 to
 * max-1, an empty slot answers NOT_FOUND; MIG handles go stale when
 * instances change), and each is read as a GPU of its own, a sampler_gpu
 * with the MIG handle: its name and UUID by identity's reader, its memory
 * and volatile uncorrected ECC count by the metric rows' readers, its
 * instance ids and BAR1 by the attribute rows' (gpu_attr.h), so a MIG
 * device's values are read exactly as a GPU's are. What they carry points
 * into that sampler_gpu, kept until the next call or sampler_gpu_free.
 */
#include <stdlib.h>
#include <string.h>
#include "sampler_int.h"
#include "util.h"

void sampler_gpu_migs_free(struct sampler_gpu *g)
{
    for (unsigned i = 0; i < g->nmigs; i++)
        sampler_gpu_free(&g->migs[i]);
    free(g->migs);
    free(g->mig_out);
    g->migs = NULL;
    g->mig_out = NULL;
    g->nmigs = 0;
}

/* Reads MIG device m (its handle set) into o. */
static void sampler_mig_read(struct sampler_gpu *m, uint64_t tick, bool full, struct sampler_mig *o)
{
    bool want[GA_COUNT] = {false};
    struct gpu_attrs a;
    want[GA_GPU_INSTANCE] = want[GA_COMPUTE_INSTANCE] = true;
    want[GA_BAR1_USED] = want[GA_BAR1_TOTAL] = full;
    sampler_read_identity(m);
    sampler_read_metric(m, tick, M_NAME, &o->name);
    sampler_read_metric(m, tick, M_UUID, &o->uuid);
    sampler_attr_read(m, tick, want, &a);
    o->slot = m->index;
    o->gi = a.v[GA_GPU_INSTANCE];
    o->ci = a.v[GA_COMPUTE_INSTANCE];
    if (!full)
        return;
    o->bar1_used = a.v[GA_BAR1_USED];
    o->bar1_total = a.v[GA_BAR1_TOTAL];
    sampler_read_metric(m, tick, M_MEM_USED, &o->mem_used);
    sampler_read_metric(m, tick, M_MEM_TOTAL, &o->mem_total);
    sampler_read_metric(m, tick, M_ECC_UNCORR, &o->ecc_uncorr);
}

unsigned sampler_gpu_migs(struct sampler_gpu *g, bool full, const struct sampler_mig **out)
{
    unsigned int max = 0;
    sampler_gpu_migs_free(g);
    *out = NULL;
    if (!nvml.nvmlDeviceGetMaxMigDeviceCount || !nvml.nvmlDeviceGetMigDeviceHandleByIndex ||
        nvml.nvmlDeviceGetMaxMigDeviceCount(g->h, &max) != NVML_SUCCESS || max == 0)
        return 0;
    g->migs = xcalloc(max, sizeof *g->migs);
    g->mig_out = xcalloc(max, sizeof *g->mig_out);
    for (unsigned slot = 0; slot < max; slot++) {
        nvmlDevice_t h;
        if (nvml.nvmlDeviceGetMigDeviceHandleByIndex(g->h, slot, &h) != NVML_SUCCESS)
            continue;
        struct sampler_gpu *m = &g->migs[g->nmigs];
        m->index = slot;
        m->h = h;
        sampler_mig_read(m, 1, full, &g->mig_out[g->nmigs++]);   /* a fresh device: tick 1 reads each call once */
    }
    *out = g->mig_out;
    return g->nmigs;
}
