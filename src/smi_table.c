/*
 * smi_table.c: a snapshot (smi.h) spelled as nvidia-smi spells its summary
 * table and its -L list, byte for byte as in the captures of real ones
 * (tests/cli/smi/). No NVML here: values arrive with their states.
 *
 * The table is 91 columns wide. Each line of a box is a template (its
 * borders) and fields placed at fixed columns, each right- or left-aligned
 * as nvidia-smi aligns it; the columns below were measured on the captures
 * (driver 590 to 610). The header names "Driver Version" and "CUDA
 * Version" up to driver 59x and "KMD Version" and "CUDA UMD Version" from
 * 600 on (595 captures show the first, 610 the second). Long GPU names keep
 * their first 24 characters and end in "...", long process names keep
 * their last 29 and start with "...". Power is in whole watts (truncated,
 * as nvidia-smi does), memory in whole MiB.
 */
#include "smi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMI_WIDTH 91
#define SMI_MIB (1024ull * 1024)

static const char smi_rule_full[] =
    "+-----------------------------------------------------------------------------------------+\n";
static const char smi_rule_gpu[] =
    "+-----------------------------------------+------------------------+----------------------+\n";
static const char smi_rule_mig[] =
    "+------------------+----------------------------------+-----------+-----------------------+\n";
static const char smi_gpu_head[] =
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                        |               MIG M. |\n"
    "|=========================================+========================+======================|\n";
static const char smi_mig_head[] =
    "| MIG devices:                                                                            |\n"
    "+------------------+----------------------------------+-----------+-----------------------+\n"
    "| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |\n"
    "|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |\n"
    "|                  |                                  |        ECC|                       |\n"
    "|==================+==================================+===========+=======================|\n";
static const char smi_proc_head[] =
    "| Processes:                                                                              |\n"
    "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
    "|        ID   ID                                                               Usage      |\n"
    "|=========================================================================================|\n";

/* One line being laid out: spaces, its borders, then fields by column. */
struct smi_line {
    char c[SMI_WIDTH + 1];
};

static void smi_line_init(struct smi_line *l, const int *borders)
{
    memset(l->c, ' ', SMI_WIDTH);
    l->c[SMI_WIDTH] = '\0';
    for (; *borders >= 0; borders++)
        l->c[*borders] = '|';
}

/* Puts s left-aligned from column col ('<') or right-aligned to end at col ('>'). */
static void smi_put(struct smi_line *l, int col, char align, const char *s)
{
    int n = (int)strlen(s), start = align == '>' ? col - n + 1 : col;
    for (int i = 0; i < n; i++)
        if (start + i >= 0 && start + i < SMI_WIDTH)
            l->c[start + i] = s[i];
}

static void smi_line_out(struct sbuf *b, const struct smi_line *l)
{
    sbuf_puts(b, l->c);
    sbuf_putc(b, '\n');
}

/* A value's text: NULL when it holds a value, else N/A (unsupported) or ERR! as nvidia-smi writes them. */
static const char *smi_bad(const struct value *v)
{
    if (v->state == VS_OK)
        return NULL;
    return v->state == VS_UNSUPPORTED ? "N/A" : "ERR!";
}

/* An integer value printed with fmt (one long long), or its N/A / ERR!. */
static const char *smi_fmt(char *buf, size_t n, const struct value *v, const char *fmt)
{
    const char *bad = smi_bad(v);
    if (bad)
        return bad;
    snprintf(buf, n, fmt, v->u.i);
    return buf;
}

/* Watts (a float value) as nvidia-smi prints them: whole, truncated ("%lldW"). */
static const char *smi_watts(char *buf, size_t n, const struct value *v)
{
    const char *bad = smi_bad(v);
    if (bad)
        return bad;
    snprintf(buf, n, "%lldW", llround(v->u.f * 1000) / 1000);   /* from the milliwatts NVML gave */
    return buf;
}

static void smi_header(struct sbuf *b, const struct smi_snapshot *s, time_t now)
{
    struct tm tm;
    char date[64], cuda[16] = "N/A";
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y", &tm);
    sbuf_printf(b, "%s       \n%s", date, smi_rule_full);
    if (s->cuda > 0)
        snprintf(cuda, sizeof cuda, "%d.%d", s->cuda / 1000, s->cuda % 1000 / 10);
    const char *drv = s->driver[0] ? s->driver : "N/A";
    if (atoi(drv) >= 600)
        sbuf_printf(b, "| NVIDIA-SMI %-22s KMD Version: %-13s CUDA UMD Version: %-9s|\n", drv, drv, cuda);
    else
        sbuf_printf(b, "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|\n", drv, drv, cuda);
    sbuf_puts(b, smi_rule_gpu);
    sbuf_puts(b, smi_gpu_head);
}

/* Volatile Uncorr. ECC: N/A without ECC, Off when disabled, On with MIG on (the
 * MIG devices box has the counts), else the volatile uncorrected count. */
static const char *smi_ecc(char *buf, size_t n, const struct smi_gpu *g)
{
    const struct value *mode = &g->a.v[GA_ECC_MODE], *mig = &g->a.v[GA_MIG_MODE];
    const char *bad = smi_bad(mode);
    if (bad)
        return bad;
    if (!mode->u.i)
        return "Off";
    if (mig->state == VS_OK && mig->u.i)
        return "On";
    return smi_fmt(buf, n, &g->v[M_ECC_UNCORR], "%lld");
}

static const char *smi_compute_mode(const struct value *v)
{
    const char *bad = smi_bad(v);
    if (bad)
        return bad;
    switch (v->u.i) {
    case NVML_COMPUTEMODE_DEFAULT: return "Default";
    case NVML_COMPUTEMODE_EXCLUSIVE_THREAD: return "E. Thread";
    case NVML_COMPUTEMODE_PROHIBITED: return "Prohibited";
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: return "E. Process";
    default: return "Unknown";
    }
}

static const char *smi_onoff(const struct value *v, const char *on, const char *off)
{
    const char *bad = smi_bad(v);
    return bad ? bad : v->u.i ? on : off;
}

static void smi_gpu_block(struct sbuf *b, const struct smi_gpu *g)
{
    static const int borders[] = {0, 42, 67, 90, -1};
    char t[4][48], name[128];
    const struct value *v = g->v, *a = g->a.v;
    struct smi_line l;

    if (smi_bad(&v[M_NAME]))
        snprintf(name, sizeof name, "%s", smi_bad(&v[M_NAME]));
    else if (strlen(v[M_NAME].u.s) > 27)
        snprintf(name, sizeof name, "%.24s...", v[M_NAME].u.s);
    else
        snprintf(name, sizeof name, "%s", v[M_NAME].u.s);
    smi_line_init(&l, borders);
    snprintf(t[0], sizeof t[0], "%u", g->index);
    smi_put(&l, 4, '>', t[0]);
    smi_put(&l, 7, '<', name);
    smi_put(&l, 38, '<', smi_onoff(&a[GA_PERSISTENCE], "On", "Off"));
    smi_put(&l, 61, '>', smi_bad(&v[M_PCI_BUS_ID]) ? smi_bad(&v[M_PCI_BUS_ID]) : v[M_PCI_BUS_ID].u.s);
    smi_put(&l, 65, '>', smi_onoff(&a[GA_DISPLAY_ACTIVE], "On", "Off"));
    smi_put(&l, 88, '>', smi_ecc(t[1], sizeof t[1], g));
    smi_line_out(b, &l);

    smi_line_init(&l, borders);
    smi_put(&l, 4, '>', smi_fmt(t[0], sizeof t[0], &v[M_FAN], "%lld%%"));
    smi_put(&l, 10, '>', smi_fmt(t[1], sizeof t[1], &v[M_TEMP], "%lldC"));
    smi_put(&l, 15, '<', smi_fmt(t[2], sizeof t[2], &v[M_PSTATE], "P%lld"));
    smi_put(&l, 32, '>', smi_watts(t[3], sizeof t[3], &v[M_POWER]));
    smi_put(&l, 34, '<', "/");
    smi_put(&l, 40, '>', smi_watts(t[0], sizeof t[0], &v[M_POWER_ENFORCED]));
    smi_put(&l, 53, '>', smi_fmt(t[1], sizeof t[1], &v[M_MEM_USED], "%lldMiB"));
    smi_put(&l, 55, '<', "/");
    smi_put(&l, 65, '>', smi_fmt(t[2], sizeof t[2], &v[M_MEM_TOTAL], "%lldMiB"));
    smi_put(&l, 75, '>', smi_fmt(t[3], sizeof t[3], &v[M_UTIL_GPU], "%lld%%"));
    smi_put(&l, 88, '>', smi_compute_mode(&a[GA_COMPUTE_MODE]));
    smi_line_out(b, &l);

    smi_line_init(&l, borders);
    smi_put(&l, 88, '>', smi_onoff(&a[GA_MIG_MODE], "Enabled", "Disabled"));
    smi_line_out(b, &l);
    sbuf_puts(b, smi_rule_gpu);
}

static void smi_mig_rows(struct sbuf *b, const struct smi_gpu *g)
{
    static const int borders[] = {0, 19, 54, 66, 90, -1};
    char t[3][48];
    struct smi_line l;
    for (unsigned i = 0; i < g->nmig; i++) {
        const struct sampler_mig *d = &g->mig[i];
        smi_line_init(&l, borders);
        snprintf(t[0], sizeof t[0], "%u", g->index);
        smi_put(&l, 3, '>', t[0]);
        smi_put(&l, 8, '>', smi_fmt(t[0], sizeof t[0], &d->gi, "%lld"));
        smi_put(&l, 12, '>', smi_fmt(t[1], sizeof t[1], &d->ci, "%lld"));
        snprintf(t[2], sizeof t[2], "%u", d->slot);
        smi_put(&l, 16, '>', t[2]);
        smi_put(&l, 38, '>', smi_fmt(t[0], sizeof t[0], &d->mem_used, "%lldMiB"));
        smi_put(&l, 40, '<', "/");
        smi_put(&l, 49, '>', smi_fmt(t[1], sizeof t[1], &d->mem_total, "%lldMiB"));
        /* SM and engine counts need nvmlDeviceGetAttributes, which gpumon does not declare */
        smi_put(&l, 57, '>', "N/A");
        smi_put(&l, 64, '>', smi_fmt(t[2], sizeof t[2], &d->ecc_uncorr, "%lld"));
        for (int c = 0; c < 5; c++)
            smi_put(&l, (int[]){69, 73, 78, 83, 88}[c], '>', "N/A");
        smi_line_out(b, &l);
        smi_line_init(&l, borders);
        smi_put(&l, 38, '>', smi_fmt(t[0], sizeof t[0], &d->bar1_used, "%lldMiB"));
        smi_put(&l, 40, '<', "/");
        smi_put(&l, 49, '>', smi_fmt(t[1], sizeof t[1], &d->bar1_total, "%lldMiB"));
        smi_line_out(b, &l);
        sbuf_puts(b, smi_rule_mig);
    }
}

static void smi_mig_box(struct sbuf *b, const struct smi_snapshot *s)
{
    unsigned on = 0, rows = 0;
    for (unsigned i = 0; i < s->ngpus; i++) {
        const struct smi_gpu *g = &s->gpus[i];
        const struct value *mig = &g->a.v[GA_MIG_MODE];
        on += g->handle_rc == 0 && mig->state == VS_OK && mig->u.i;
        rows += g->handle_rc == 0 ? g->nmig : 0;
    }
    if (!on)
        return;
    sbuf_printf(b, "\n%s%s", smi_rule_full, smi_mig_head);
    for (unsigned i = 0; i < s->ngpus; i++)
        if (s->gpus[i].handle_rc == 0)
            smi_mig_rows(b, &s->gpus[i]);
    if (!rows)
        sbuf_printf(b, "|  %-87s|\n%s", "No MIG devices found", smi_rule_full);
}

static void smi_proc_row(struct sbuf *b, const struct sampler_proc *p)
{
    static const int borders[] = {0, 90, -1};
    char t[48], name[40];
    struct smi_line l;
    smi_line_init(&l, borders);
    snprintf(t, sizeof t, "%u", p->gpu);
    smi_put(&l, 5, '>', t);
    if (p->gi == 0xFFFFFFFFu)
        smi_put(&l, 11, '>', "N/A");
    else
        smi_put(&l, 10, '>', (snprintf(t, sizeof t, "%u", p->gi), t));
    if (p->ci == 0xFFFFFFFFu)
        smi_put(&l, 16, '>', "N/A");
    else
        smi_put(&l, 15, '>', (snprintf(t, sizeof t, "%u", p->ci), t));
    smi_put(&l, 32, '>', (snprintf(t, sizeof t, "%u", p->pid), t));
    smi_put(&l, 39, '>', p->compute && p->graphics ? "C+G" : p->graphics ? "G" : "C");
    size_t n = strlen(p->name);
    if (!n)
        snprintf(name, sizeof name, "N/A");
    else if (n > 32)
        snprintf(name, sizeof name, "...%.29s", p->name + n - 29);
    else
        snprintf(name, sizeof name, "%.32s", p->name);
    smi_put(&l, 43, '<', name);
    if (p->mem == NVML_VALUE_NOT_AVAILABLE)
        smi_put(&l, 81, '<', "N/A");
    else
        smi_put(&l, 88, '>', (snprintf(t, sizeof t, "%lluMiB", p->mem / SMI_MIB), t));
    smi_line_out(b, &l);
}

void smi_table(struct sbuf *b, const struct smi_snapshot *s, time_t now)
{
    smi_header(b, s, now);
    for (unsigned i = 0; i < s->ngpus; i++)
        if (s->gpus[i].handle_rc == 0)
            smi_gpu_block(b, &s->gpus[i]);
    smi_mig_box(b, s);
    sbuf_printf(b, "\n%s%s", smi_rule_full, smi_proc_head);
    for (unsigned i = 0; i < s->nprocs; i++)
        smi_proc_row(b, &s->procs[i]);
    if (!s->nprocs)
        sbuf_printf(b, "|  %-87s|\n", "No running processes found");
    sbuf_puts(b, smi_rule_full);
}

void smi_list(struct sbuf *b, const struct smi_snapshot *s)
{
    for (unsigned i = 0; i < s->ngpus; i++) {
        const struct smi_gpu *g = &s->gpus[i];
        if (g->handle_rc != 0)
            continue;
        sbuf_printf(b, "GPU %u: %s (UUID: %s)\n", g->index, smi_bad(&g->v[M_NAME]) ? "N/A" : g->v[M_NAME].u.s,
                    smi_bad(&g->v[M_UUID]) ? "N/A" : g->v[M_UUID].u.s);
        for (unsigned m = 0; m < g->nmig; m++) {
            const struct sampler_mig *d = &g->mig[m];
            const char *name = d->name.state == VS_OK ? d->name.u.s : "", *profile = strstr(name, "MIG ");
            sbuf_printf(b, "  MIG %-11s Device %2u: (UUID: %s)\n", profile ? profile + 4 : name, d->slot,
                        d->uuid.state == VS_OK && d->uuid.u.s[0] ? d->uuid.u.s : "N/A");
        }
    }
}
