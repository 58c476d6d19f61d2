/*
 * smi_read.c: one snapshot of what nvidia-smi's summary table and -L show,
 * read straight from NVML (see smi.h for why not through the sampler).
 *
 * Each value keeps the code its call returned, and a call the library lacks
 * reads as SMI_MISSING, so the table can tell N/A from ERR!. A GPU whose
 * handle cannot be had keeps only its index and that code. MIG devices are
 * enumerated the documented way (slots 0 .. max-1, empty slots answer
 * NOT_FOUND); processes come from nvml_processes (compute and graphics
 * lists merged, each remembering the lists it was on) and are named by
 * nvmlSystemGetProcessName. The once-only reads of the driver and CUDA
 * versions are nvml.c's; the CUDA version prefers the _v2 call.
 */
#include "smi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvml.h"

/* Calls an NVML getter of one output of type T into *out, keeping the code. */
#define SMI_GET(out, fn, T, ...)                                                  \
    do {                                                                          \
        T smi_x_ = 0;                                                             \
        (out)->rc = nvml.fn ? nvml.fn(__VA_ARGS__, &smi_x_) : SMI_MISSING;        \
        (out)->v = (out)->rc == NVML_SUCCESS ? (unsigned long long)smi_x_ : 0;    \
    } while (0)

static void smi_read_memory(nvmlDevice_t h, struct smi_val *used, struct smi_val *total)
{
    struct nvml_memory m;
    used->rc = total->rc = nvml_memory(h, &m);
    used->v = m.used, total->v = m.total;
}

static void smi_read_bar1(nvmlDevice_t h, struct smi_val *used, struct smi_val *total)
{
    nvmlBAR1Memory_t m;
    memset(&m, 0, sizeof m);
    used->rc = total->rc = nvml.nvmlDeviceGetBAR1MemoryInfo ? nvml.nvmlDeviceGetBAR1MemoryInfo(h, &m) : SMI_MISSING;
    used->v = m.bar1Used, total->v = m.bar1Total;
}

static void smi_read_ecc(nvmlDevice_t h, struct smi_val *out)
{
    out->v = 0;
    out->rc = nvml.nvmlDeviceGetTotalEccErrors
                  ? nvml.nvmlDeviceGetTotalEccErrors(h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &out->v)
                  : SMI_MISSING;
}

static void smi_read_temp(nvmlDevice_t h, struct smi_val *out)
{
    if (nvml.nvmlDeviceGetTemperatureV) {
        nvmlTemperature_v1_t t = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
        out->rc = nvml.nvmlDeviceGetTemperatureV(h, &t);
        out->v = out->rc == NVML_SUCCESS && t.temperature > 0 ? (unsigned long long)t.temperature : 0;
        if (out->rc == NVML_SUCCESS || nvml_code_is_lost(out->rc))
            return;
    }
    SMI_GET(out, nvmlDeviceGetTemperature, unsigned int, h, NVML_TEMPERATURE_GPU);
}

static void smi_read_identity(struct smi_gpu *g, nvmlDevice_t h)
{
    g->name_rc = nvml.nvmlDeviceGetName ? nvml.nvmlDeviceGetName(h, g->name, sizeof g->name) : SMI_MISSING;
    g->uuid_rc = nvml.nvmlDeviceGetUUID ? nvml.nvmlDeviceGetUUID(h, g->uuid, sizeof g->uuid) : SMI_MISSING;
    g->name[sizeof g->name - 1] = g->uuid[sizeof g->uuid - 1] = '\0';
    nvmlPciInfo_t p;
    if ((g->bus_rc = nvml_pci_info(h, &p)) == NVML_SUCCESS)
        snprintf(g->bus_id, sizeof g->bus_id, "%s", p.busId);
}

static void smi_read_migs(struct smi_gpu *g, nvmlDevice_t h, bool full)
{
    struct smi_val max;
    SMI_GET(&max, nvmlDeviceGetMaxMigDeviceCount, unsigned int, h);
    if (max.rc != NVML_SUCCESS || max.v == 0 || !nvml.nvmlDeviceGetMigDeviceHandleByIndex)
        return;
    g->mig = xcalloc(max.v, sizeof *g->mig);
    for (unsigned i = 0; i < max.v; i++) {
        nvmlDevice_t m;
        if (nvml.nvmlDeviceGetMigDeviceHandleByIndex(h, i, &m) != NVML_SUCCESS)
            continue;
        struct smi_mig *d = &g->mig[g->nmig++];
        d->dev = i;
        if (nvml.nvmlDeviceGetName && nvml.nvmlDeviceGetName(m, d->name, sizeof d->name) != NVML_SUCCESS)
            d->name[0] = '\0';
        if (nvml.nvmlDeviceGetUUID && nvml.nvmlDeviceGetUUID(m, d->uuid, sizeof d->uuid) != NVML_SUCCESS)
            d->uuid[0] = '\0';
        d->name[sizeof d->name - 1] = d->uuid[sizeof d->uuid - 1] = '\0';
        SMI_GET(&d->gi, nvmlDeviceGetGpuInstanceId, unsigned int, m);
        SMI_GET(&d->ci, nvmlDeviceGetComputeInstanceId, unsigned int, m);
        if (!full)
            continue;
        smi_read_memory(m, &d->mem_used, &d->mem_total);
        smi_read_bar1(m, &d->bar1_used, &d->bar1_total);
        smi_read_ecc(m, &d->ecc_uncorr);
    }
}

static void smi_read_gpu(struct smi_gpu *g, nvmlDevice_t h)
{
    unsigned int cur = 0, pend = 0;
    nvmlUtilization_t u = {0, 0};
    SMI_GET(&g->persistence, nvmlDeviceGetPersistenceMode, nvmlEnableState_t, h);
    SMI_GET(&g->display, nvmlDeviceGetDisplayActive, nvmlEnableState_t, h);
    nvmlEnableState_t ecc_cur = 0, ecc_pend = 0;
    g->ecc_mode.rc = nvml.nvmlDeviceGetEccMode ? nvml.nvmlDeviceGetEccMode(h, &ecc_cur, &ecc_pend) : SMI_MISSING;
    g->ecc_mode.v = (unsigned long long)ecc_cur;
    smi_read_ecc(h, &g->ecc_uncorr);
    SMI_GET(&g->fan, nvmlDeviceGetFanSpeed, unsigned int, h);
    smi_read_temp(h, &g->temp);
    SMI_GET(&g->pstate, nvmlDeviceGetPerformanceState, nvmlPstates_t, h);
    SMI_GET(&g->power_mw, nvmlDeviceGetPowerUsage, unsigned int, h);
    SMI_GET(&g->cap_mw, nvmlDeviceGetEnforcedPowerLimit, unsigned int, h);
    smi_read_memory(h, &g->mem_used, &g->mem_total);
    g->util.rc = nvml.nvmlDeviceGetUtilizationRates ? nvml.nvmlDeviceGetUtilizationRates(h, &u) : SMI_MISSING;
    g->util.v = u.gpu;
    SMI_GET(&g->compute_mode, nvmlDeviceGetComputeMode, nvmlComputeMode_t, h);
    g->mig_mode.rc = nvml.nvmlDeviceGetMigMode ? nvml.nvmlDeviceGetMigMode(h, &cur, &pend) : SMI_MISSING;
    g->mig_mode.v = cur;
}

static int smi_proc_cmp(const void *a, const void *b)
{
    const struct smi_proc *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void smi_read_procs(struct smi_snapshot *s, const struct smi_gpu *g, nvmlDevice_t h)
{
    struct nvml_process *p = NULL;
    unsigned n = 0, cap = 0;
    if (nvml_processes(h, &p, &cap, &n) != NVML_SUCCESS || n == 0) {
        free(p);
        return;
    }
    s->procs = xrealloc(s->procs, (s->nprocs + n) * sizeof *s->procs);
    for (unsigned i = 0; i < n; i++) {
        struct smi_proc *q = &s->procs[s->nprocs++];
        *q = (struct smi_proc){g->index, p[i].pid, p[i].gi, p[i].ci, p[i].kinds, p[i].used_memory, ""};
        if (!nvml.nvmlSystemGetProcessName ||
            nvml.nvmlSystemGetProcessName(p[i].pid, q->name, sizeof q->name) != NVML_SUCCESS)
            q->name[0] = '\0';
        q->name[sizeof q->name - 1] = '\0';
    }
    free(p);
}

void smi_read(struct smi_snapshot *s, bool full)
{
    memset(s, 0, sizeof *s);
    snprintf(s->driver, sizeof s->driver, "%s", nvml.driver_version);
    if (!nvml.nvmlSystemGetCudaDriverVersion_v2 || nvml.nvmlSystemGetCudaDriverVersion_v2(&s->cuda) != NVML_SUCCESS)
        s->cuda = nvml.cuda_version;
    unsigned int count = 0;
    if (nvml.get_count(&count) != NVML_SUCCESS)
        count = 0;
    s->gpus = xcalloc(count ? count : 1, sizeof *s->gpus);
    for (unsigned i = 0; i < count; i++) {
        struct smi_gpu *g = &s->gpus[s->ngpus++];
        nvmlDevice_t h;
        g->index = i;
        if ((g->handle_rc = nvml.get_handle(i, &h)) != NVML_SUCCESS)
            continue;
        smi_read_identity(g, h);
        if (full)
            smi_read_gpu(g, h);
        if (!full || (g->mig_mode.rc == NVML_SUCCESS && g->mig_mode.v == NVML_DEVICE_MIG_ENABLE))
            smi_read_migs(g, h, full);   /* no MIG devices without MIG on: the max count is 0 */
        if (full)
            smi_read_procs(s, g, h);
    }
    if (s->nprocs > 1)
        qsort(s->procs, s->nprocs, sizeof *s->procs, smi_proc_cmp);
}

void smi_free(struct smi_snapshot *s)
{
    for (unsigned i = 0; i < s->ngpus; i++)
        free(s->gpus[i].mig);
    free(s->gpus);
    free(s->procs);
    memset(s, 0, sizeof *s);
}
