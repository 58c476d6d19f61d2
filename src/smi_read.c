/*
 * smi_read.c: one snapshot of what nvidia-smi's summary table and -L show,
 * gathered from the sampler (see smi.h): it reads no NVML itself, so each
 * value has the reading (and the fallbacks) that watch, the query and the
 * exporter give it. A GPU whose handle cannot be had keeps only its index
 * and that code. MIG devices are read when MIG is on for the table, always
 * for -L (a GPU without MIG has none); the processes of every GPU shown
 * are merged and sorted by GPU, then pid.
 */
#include "smi.h"

#include <stdlib.h>
#include <string.h>

static int smi_proc_cmp(const void *a, const void *b)
{
    const struct sampler_proc *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Appends the processes of the i-th GPU to snap. */
static void smi_read_procs(struct smi_snapshot *snap, struct sampler *s, unsigned i)
{
    struct sampler_proc *p;
    unsigned n = sampler_processes(s, i, &p);
    if (!n)
        return;
    snap->procs = xrealloc(snap->procs, (snap->nprocs + n) * sizeof *snap->procs);
    memcpy(snap->procs + snap->nprocs, p, n * sizeof *p);
    snap->nprocs += n;
    free(p);
}

void smi_read(struct smi_snapshot *snap, struct sampler *s, const struct record *rec, bool full)
{
    bool want[GA_COUNT] = {false};
    want[GA_PERSISTENCE] = want[GA_DISPLAY_ACTIVE] = want[GA_ECC_MODE] = want[GA_COMPUTE_MODE] = full;
    want[GA_MIG_MODE] = full;
    memset(snap, 0, sizeof *snap);
    snap->driver = "";
    snap->cuda = sampler_cuda_version(s);
    snap->gpus = xcalloc(rec->ngpus ? rec->ngpus : 1, sizeof *snap->gpus);
    for (unsigned i = 0; i < rec->ngpus; i++) {
        struct smi_gpu *g = &snap->gpus[snap->ngpus++];
        const struct value *drv = &rec->gpus[i].v[M_DRIVER_VERSION];
        g->index = rec->gpus[i].index;
        g->v = rec->gpus[i].v;
        if (drv->state == VS_OK)
            snap->driver = drv->u.s;
        if ((g->handle_rc = sampler_handle_rc(s, i)) != 0)
            continue;
        sampler_attrs(s, i, want, &g->a);
        const struct value *mig = &g->a.v[GA_MIG_MODE];
        if (!full || (mig->state == VS_OK && mig->u.i))
            g->nmig = sampler_migs(s, i, full, &g->mig);   /* no MIG devices without MIG on */
        if (full)
            smi_read_procs(snap, s, i);
    }
    if (snap->nprocs > 1)
        qsort(snap->procs, snap->nprocs, sizeof *snap->procs, smi_proc_cmp);
}

void smi_free(struct smi_snapshot *snap)
{
    free(snap->gpus);
    free(snap->procs);
    memset(snap, 0, sizeof *snap);
}
