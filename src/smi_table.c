/*
 * smi_table.c: a snapshot (smi.h) spelled as nvidia-smi spells its summary
 * table and its -L list, byte for byte as in the captures of real ones
 * (tests/cli/smi/). No NVML here: values arrive with their codes.
 *
 * The table is 91 columns wide. Each line of a box is a template (its
 * borders) and fields placed at fixed columns, each right- or left-aligned
 * as nvidia-smi aligns it; the columns below were measured on the captures
 * (driver 590 to 610). The header names "Driver Version" and "CUDA
 * Version" up to driver 59x and "KMD Version" and "CUDA UMD Version" from
 * 600 on (595 captures show the first, 610 the second). Long GPU names keep
 * their first 24 characters and end in "...", long process names keep
 * their last 29 and start with "...". Power is in whole watts (milliwatts
 * divided, as nvidia-smi truncates), memory in whole MiB.
 */
#include "smi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvml.h"

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

/* A value's text: NULL when it holds a value, else N/A or ERR! as nvidia-smi writes them. */
static const char *smi_bad(int rc)
{
    if (rc == NVML_SUCCESS)
        return NULL;
    return nvml_code_is_unsupported(rc) || rc == SMI_MISSING ? "N/A" : "ERR!";
}

/* v printed with fmt (one unsigned long long), or its N/A / ERR!. */
static const char *smi_fmt(char *buf, size_t n, const struct smi_val *v, const char *fmt, unsigned long long div)
{
    const char *bad = smi_bad(v->rc);
    if (bad)
        return bad;
    snprintf(buf, n, fmt, v->v / div);
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
    const char *bad = smi_bad(g->ecc_mode.rc);
    if (bad)
        return bad;
    if (g->ecc_mode.v != NVML_FEATURE_ENABLED)
        return "Off";
    if (g->mig_mode.rc == NVML_SUCCESS && g->mig_mode.v == NVML_DEVICE_MIG_ENABLE)
        return "On";
    return smi_fmt(buf, n, &g->ecc_uncorr, "%llu", 1);
}

static const char *smi_compute_mode(const struct smi_val *v)
{
    const char *bad = smi_bad(v->rc);
    if (bad)
        return bad;
    switch (v->v) {
    case NVML_COMPUTEMODE_DEFAULT: return "Default";
    case NVML_COMPUTEMODE_EXCLUSIVE_THREAD: return "E. Thread";
    case NVML_COMPUTEMODE_PROHIBITED: return "Prohibited";
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: return "E. Process";
    default: return "Unknown";
    }
}

static const char *smi_onoff(const struct smi_val *v, const char *on, const char *off)
{
    const char *bad = smi_bad(v->rc);
    return bad ? bad : v->v ? on : off;
}

static void smi_gpu_block(struct sbuf *b, const struct smi_gpu *g)
{
    static const int borders[] = {0, 42, 67, 90, -1};
    char t[4][48], name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    struct smi_line l;

    if (g->name_rc != NVML_SUCCESS)
        snprintf(name, sizeof name, "%s", smi_bad(g->name_rc));
    else if (strlen(g->name) > 27)
        snprintf(name, sizeof name, "%.24s...", g->name);
    else
        snprintf(name, sizeof name, "%s", g->name);
    smi_line_init(&l, borders);
    snprintf(t[0], sizeof t[0], "%u", g->index);
    smi_put(&l, 4, '>', t[0]);
    smi_put(&l, 7, '<', name);
    smi_put(&l, 38, '<', smi_onoff(&g->persistence, "On", "Off"));
    smi_put(&l, 61, '>', g->bus_rc == NVML_SUCCESS ? g->bus_id : smi_bad(g->bus_rc));
    smi_put(&l, 65, '>', smi_onoff(&g->display, "On", "Off"));
    smi_put(&l, 88, '>', smi_ecc(t[1], sizeof t[1], g));
    smi_line_out(b, &l);

    smi_line_init(&l, borders);
    smi_put(&l, 4, '>', smi_fmt(t[0], sizeof t[0], &g->fan, "%llu%%", 1));
    smi_put(&l, 10, '>', smi_fmt(t[1], sizeof t[1], &g->temp, "%lluC", 1));
    smi_put(&l, 15, '<', smi_fmt(t[2], sizeof t[2], &g->pstate, "P%llu", 1));
    smi_put(&l, 32, '>', smi_fmt(t[3], sizeof t[3], &g->power_mw, "%lluW", 1000));
    smi_put(&l, 34, '<', "/");
    smi_put(&l, 40, '>', smi_fmt(t[0], sizeof t[0], &g->cap_mw, "%lluW", 1000));
    smi_put(&l, 53, '>', smi_fmt(t[1], sizeof t[1], &g->mem_used, "%lluMiB", SMI_MIB));
    smi_put(&l, 55, '<', "/");
    smi_put(&l, 65, '>', smi_fmt(t[2], sizeof t[2], &g->mem_total, "%lluMiB", SMI_MIB));
    smi_put(&l, 75, '>', smi_fmt(t[3], sizeof t[3], &g->util, "%llu%%", 1));
    smi_put(&l, 88, '>', smi_compute_mode(&g->compute_mode));
    smi_line_out(b, &l);

    smi_line_init(&l, borders);
    smi_put(&l, 88, '>', smi_onoff(&g->mig_mode, "Enabled", "Disabled"));
    smi_line_out(b, &l);
    sbuf_puts(b, smi_rule_gpu);
}

static void smi_mig_rows(struct sbuf *b, const struct smi_gpu *g)
{
    static const int borders[] = {0, 19, 54, 66, 90, -1};
    char t[3][48];
    struct smi_line l;
    for (unsigned i = 0; i < g->nmig; i++) {
        const struct smi_mig *d = &g->mig[i];
        smi_line_init(&l, borders);
        snprintf(t[0], sizeof t[0], "%u", g->index);
        smi_put(&l, 3, '>', t[0]);
        smi_put(&l, 8, '>', smi_fmt(t[0], sizeof t[0], &d->gi, "%llu", 1));
        smi_put(&l, 12, '>', smi_fmt(t[1], sizeof t[1], &d->ci, "%llu", 1));
        snprintf(t[2], sizeof t[2], "%u", d->dev);
        smi_put(&l, 16, '>', t[2]);
        smi_put(&l, 38, '>', smi_fmt(t[0], sizeof t[0], &d->mem_used, "%lluMiB", SMI_MIB));
        smi_put(&l, 40, '<', "/");
        smi_put(&l, 49, '>', smi_fmt(t[1], sizeof t[1], &d->mem_total, "%lluMiB", SMI_MIB));
        /* SM and engine counts need nvmlDeviceGetAttributes, which gpumon does not declare */
        smi_put(&l, 57, '>', "N/A");
        smi_put(&l, 64, '>', smi_fmt(t[2], sizeof t[2], &d->ecc_uncorr, "%llu", 1));
        for (int c = 0; c < 5; c++)
            smi_put(&l, (int[]){69, 73, 78, 83, 88}[c], '>', "N/A");
        smi_line_out(b, &l);
        smi_line_init(&l, borders);
        smi_put(&l, 38, '>', smi_fmt(t[0], sizeof t[0], &d->bar1_used, "%lluMiB", SMI_MIB));
        smi_put(&l, 40, '<', "/");
        smi_put(&l, 49, '>', smi_fmt(t[1], sizeof t[1], &d->bar1_total, "%lluMiB", SMI_MIB));
        smi_line_out(b, &l);
        sbuf_puts(b, smi_rule_mig);
    }
}

static void smi_mig_box(struct sbuf *b, const struct smi_snapshot *s)
{
    unsigned on = 0, rows = 0;
    for (unsigned i = 0; i < s->ngpus; i++) {
        const struct smi_gpu *g = &s->gpus[i];
        on += g->handle_rc == NVML_SUCCESS && g->mig_mode.rc == NVML_SUCCESS && g->mig_mode.v == NVML_DEVICE_MIG_ENABLE;
        rows += g->handle_rc == NVML_SUCCESS ? g->nmig : 0;
    }
    if (!on)
        return;
    sbuf_printf(b, "\n%s%s", smi_rule_full, smi_mig_head);
    for (unsigned i = 0; i < s->ngpus; i++)
        if (s->gpus[i].handle_rc == NVML_SUCCESS)
            smi_mig_rows(b, &s->gpus[i]);
    if (!rows)
        sbuf_printf(b, "|  %-87s|\n%s", "No MIG devices found", smi_rule_full);
}

static void smi_proc_row(struct sbuf *b, const struct smi_proc *p)
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
    smi_put(&l, 39, '>', p->kinds == (NVML_PROC_COMPUTE | NVML_PROC_GRAPHICS) ? "C+G"
                         : p->kinds == NVML_PROC_GRAPHICS                    ? "G"
                                                                             : "C");
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
        if (s->gpus[i].handle_rc == NVML_SUCCESS)
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
        if (g->handle_rc != NVML_SUCCESS)
            continue;
        sbuf_printf(b, "GPU %u: %s (UUID: %s)\n", g->index, g->name_rc == NVML_SUCCESS ? g->name : "N/A",
                    g->uuid_rc == NVML_SUCCESS ? g->uuid : "N/A");
        for (unsigned m = 0; m < g->nmig; m++) {
            const struct smi_mig *d = &g->mig[m];
            const char *profile = strstr(d->name, "MIG ");
            sbuf_printf(b, "  MIG %-11s Device %2u: (UUID: %s)\n", profile ? profile + 4 : d->name, d->dev,
                        d->uuid[0] ? d->uuid : "N/A");
        }
    }
}
