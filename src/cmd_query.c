/*
 * cmd_query.c: `gpumon query`, and gpumon invoked as `nvidia-smi`: answers
 * nvidia-smi's --query-gpu / --query-compute-apps with --format=csv in
 * nvidia-smi's exact text (", " between fields, "name [unit]" headers,
 * units after values unless nounits, [N/A] and [Not Supported]), so
 * scripts that parse nvidia-smi keep working, at a fraction of the cost.
 * Values come from the sampler like every other output; this file only
 * parses nvidia-smi's options and spells values its way.
 */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "exitcodes.h"
#include "fmt.h"
#include "nvml.h"
#include "out.h"
#include "query_fields.h"
#include "sampler.h"
#include "sig.h"

#define QUERY_MAX_FIELDS 512
#define QUERY_MAX_FIELDS_TEXT "512"

enum { Q_GPU = 1, Q_APPS, Q_FORMAT, Q_ID, Q_FILE, Q_LOOP, Q_LOOP_MS, Q_HELP_GPU, Q_HELP_APPS };

static const struct opt query_opts[] = {
    {"query-gpu", NULL, "FIELDS", Q_GPU, "GPU fields, comma-separated (--help-query-gpu lists them)"},
    {"query-compute-apps", NULL, "FIELDS", Q_APPS,
     "pid, process_name, used_memory, gpu_uuid, gpu_bus_id, gpu_name"},
    {"format", NULL, "csv[,noheader][,nounits]", Q_FORMAT, "the output format (required)"},
    {"id", "i", "ID[,ID...]", Q_ID, "GPUs by index, UUID or PCI bus id"},
    {"loop", "l", "SEC", Q_LOOP, "repeat every SEC seconds until interrupted"},
    {"loop-ms", "lms", "MS", Q_LOOP_MS, "repeat every MS milliseconds until interrupted"},
    {"filename", "f", "FILE", Q_FILE, "write to FILE instead of standard output"},
    {"help-query-gpu", NULL, NULL, Q_HELP_GPU, "describe every --query-gpu field"},
    {"help-query-compute-apps", NULL, NULL, Q_HELP_APPS, "describe every --query-compute-apps field"},
    {NULL, NULL, NULL, 0, NULL},
};

static const int query_signals[] = {SIGINT, SIGTERM, 0};

static int cmd_query_gpumon(int argc, char **argv)
{
    return cmd_query(argc, argv, false);
}

const struct cmd_entry cmd_query_entry = {
    .name = "query",
    .usage = "--query-gpu=FIELDS|--query-compute-apps=FIELDS --format=csv[,noheader][,nounits] [OPTIONS]",
    .summary = "nvidia-smi compatible --query-gpu / --query-compute-apps in its CSV format\n"
               "(also what gpumon does when invoked as nvidia-smi)",
    .about = "Answer nvidia-smi style queries in nvidia-smi's CSV format (also when gpumon is\n"
             "invoked as nvidia-smi). Options take their value after = or as the next word.",
    .opts = (const struct opt *const[]){query_opts, cmd_nvml_opts, NULL},
    .style = OPT_SMI,
    .signals = query_signals,
    .exec = cmd_query_gpumon,
};

struct query_opts {
    const char *gpu_fields, *app_fields, *format, *ids, *file;
    double loop_ms;
    bool noheader, nounits, as_smi;
    struct cmd_nvml_opts nvml;
};

static void query_help_fields(bool apps)
{
    if (apps) {
        for (int i = 0; i < QA_COUNT; i++) {
            const struct query_app_field_row *f = &query_app_fields[i];
            printf("\"%s\"%s%s%s\n%s.\n\n", f->name, f->aliases[0] ? " or \"" : "",
                   f->aliases[0] ? f->aliases[0] : "", f->aliases[0] ? "\"" : "", f->help);
        }
        return;
    }
    printf("List of valid properties to query for the switch \"--query-gpu\":\n\n");
    for (size_t i = 0; i < query_gpu_nfields; i++) {
        const struct query_field *f = &query_gpu_fields[i];
        printf("\"%s\"", f->name);
        for (int a = 0; a < 3 && f->aliases[a]; a++)
            printf(" or \"%s\"", f->aliases[a]);
        printf("\n%s%s%s%s.\n\n", f->help, *f->unit ? " (" : "", f->unit, *f->unit ? ")" : "");
    }
}

static int query_bad(bool as_smi, const char *fmt, const char *what)
{
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nPlease run '%s --help' for usage information.\n", as_smi ? "nvidia-smi" : "gpumon query");
    return EXIT_USAGE;
}

static int query_set(void *ctx, int key, const char *v)
{
    struct query_opts *o = ctx;
    unsigned long long n;
    switch (key) {
    case Q_GPU: o->gpu_fields = v; return 0;
    case Q_APPS: o->app_fields = v; return 0;
    case Q_FORMAT: o->format = v; return 0;
    case Q_ID:
        if (!v[strspn(v, ", \t")])
            return query_bad(o->as_smi, "Invalid combination of input arguments: -i \"%s\" names no GPU.", v);
        o->ids = v;
        return 0;
    case Q_FILE: o->file = v; return 0;
    case Q_LOOP_MS:
        if (util_parse_uint(v, 86400000, &n) != 0 || n < 10)
            return query_bad(o->as_smi, "Invalid loop interval \"%s\": give milliseconds, from 10 to 86400000.", v);
        o->loop_ms = (double)n;
        return 0;
    case Q_LOOP:
        if (util_parse_uint(v, 86400, &n) != 0 || n == 0)
            return query_bad(o->as_smi, "Invalid loop interval \"%s\": give whole seconds, from 1 to 86400.", v);
        o->loop_ms = (double)n * 1000;
        return 0;
    case Q_HELP_GPU:
    case Q_HELP_APPS:
        query_help_fields(key == Q_HELP_APPS);
        return OPT_DONE;
    case OPT_KEY_NO_VALUE:
        return query_bad(o->as_smi, "Option \"%s\" needs a value.", v);
    case OPT_KEY_UNKNOWN:
        if (o->as_smi)
            return query_bad(true, "gpumon (installed as nvidia-smi) answers only --query-gpu and "
                             "--query-compute-apps with --format=csv, -i, -l, -lms and -f; \"%s\" is not supported. "
                             "Run gpumon for monitoring.", v);
        return query_bad(false, "Invalid argument \"%s\".", v);
    default:
        return cmd_nvml_option(&o->nvml, key, v);
    }
}

/* Checks what the options say together; parses --format. */
static int query_check(struct query_opts *o)
{
    if (!o->gpu_fields && !o->app_fields)
        return query_bad(o->as_smi, "%s", "Nothing to query: give --query-gpu=FIELDS or --query-compute-apps=FIELDS.");
    if (o->gpu_fields && o->app_fields)
        return query_bad(o->as_smi, "%s", "Give --query-gpu or --query-compute-apps, not both.");
    if (!o->format)
        return query_bad(o->as_smi, "%s", "The --format=csv option is required with --query-gpu and "
                                          "--query-compute-apps.");
    char fmt[256];
    snprintf(fmt, sizeof fmt, "%s", o->format);
    bool csv = false;
    for (char *save = NULL, *t = strtok_r(fmt, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (!strcmp(t, "csv"))
            csv = true;
        else if (!strcmp(t, "noheader"))
            o->noheader = true;
        else if (!strcmp(t, "nounits"))
            o->nounits = true;
        else
            return query_bad(o->as_smi, "\"%s\" is not a valid format option: use "
                             "--format=csv[,noheader][,nounits].", t);
    }
    if (!csv)
        return query_bad(o->as_smi, "\"%s\" is not a valid format: use --format=csv[,noheader][,nounits].",
                         o->format);
    return 0;
}

static void query_marker(struct sbuf *b, const struct value *v)
{
    char tmp[32];
    sbuf_puts(b, fmt_marker(v, FMT_MARK_SMI, tmp, sizeof tmp));
}

static void query_gpu_value(struct sbuf *b, const struct query_field *f, const struct record *r,
                            const struct record_gpu *g, bool units, unsigned count)
{
    if (f->style == QS_TIMESTAMP) {
        struct tm tm;
        char ts[64];
        time_t t = r->time.tv_sec;
        localtime_r(&t, &tm);
        strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
        sbuf_printf(b, "%s.%03d", ts, (int)(r->time.tv_nsec / 1000000));
        return;
    }
    if (f->style == QS_COUNT) {
        sbuf_put_int(b, count);
        return;
    }
    const struct value *v = &g->v[f->metric];
    if (v->state != VS_OK)
        return query_marker(b, v);
    switch (f->style) {
    case QS_WATTS: sbuf_put_fixed(b, v->u.f, 2); break;
    case QS_TEXT: sbuf_puts(b, v->u.s); break;
    case QS_PSTATE: sbuf_printf(b, "P%lld", v->u.i); break;
    case QS_MASK: sbuf_printf(b, "0x%016llx", (unsigned long long)v->u.i); break;
    case QS_ACTIVE: sbuf_puts(b, v->u.i ? "Active" : "Not Active"); break;
    case QS_YESNO: sbuf_puts(b, v->u.i ? "Yes" : "No"); break;
    default: sbuf_put_int(b, v->u.i); break;
    }
    if (units && *f->unit)
        sbuf_printf(b, " %s", f->unit);
}

static void query_header(struct sbuf *b, const struct query_opts *o, const struct query_field **gf,
                         const enum query_app_field *af, int n)
{
    for (int i = 0; i < n; i++) {
        const char *name = gf ? gf[i]->name : query_app_fields[af[i]].name;
        const char *unit = gf ? gf[i]->unit : query_app_fields[af[i]].unit;
        sbuf_printf(b, "%s%s%s%s%s", i ? ", " : "", name, *unit ? " [" : "", unit, *unit ? "]" : "");
    }
    (void)o;
    sbuf_putc(b, '\n');
}

static void query_apps(struct sbuf *b, const struct record *r, const enum query_app_field *af, int n, bool units)
{
    static const struct value none = {.state = VS_NONE};
    for (unsigned gi = 0; gi < r->ngpus; gi++) {
        const struct record_gpu *g = &r->gpus[gi];
        for (unsigned p = 0; p < g->nprocs; p++) {
            const struct record_proc *pr = &g->procs[p];
            for (int i = 0; i < n; i++) {
                if (i)
                    sbuf_puts(b, ", ");
                const struct value *v = af[i] == QA_GPU_UUID ? &g->v[M_UUID]
                                        : af[i] == QA_GPU_BUS_ID ? &g->v[M_PCI_BUS_ID] : &g->v[M_NAME];
                switch (af[i]) {
                case QA_PID: sbuf_put_int(b, pr->pid); break;
                case QA_NAME:
                    if (pr->name[0])
                        sbuf_puts(b, pr->name);
                    else
                        query_marker(b, &none);
                    break;
                case QA_MEMORY:
                    if (pr->used_mib < 0)
                        query_marker(b, &none);
                    else
                        sbuf_printf(b, "%lld%s", pr->used_mib, units ? " MiB" : "");
                    break;
                default:
                    if (v->state == VS_OK)
                        sbuf_puts(b, v->u.s);
                    else
                        query_marker(b, v);
                }
            }
            sbuf_putc(b, '\n');
        }
    }
}

/* Writes one answer (the header first, if asked) for rec into b. */
static void query_render(const struct query_opts *o, const struct query_field **gf, const enum query_app_field *af,
                         int n, const struct record *rec, unsigned count, bool header, struct sbuf *b)
{
    if (header)
        query_header(b, o, o->gpu_fields ? gf : NULL, af, n);
    if (!o->gpu_fields) {
        query_apps(b, rec, af, n, !o->nounits);
        return;
    }
    for (unsigned g = 0; g < rec->ngpus; g++) {
        for (int i = 0; i < n; i++) {
            if (i)
                sbuf_puts(b, ", ");
            query_gpu_value(b, gf[i], rec, &rec->gpus[g], !o->nounits, count);
        }
        sbuf_putc(b, '\n');
    }
}

static int query_run(const struct query_opts *o)
{
    const struct query_field *gf[QUERY_MAX_FIELDS];
    enum query_app_field af[QUERY_MAX_FIELDS];
    char bad[128];
    int n = o->gpu_fields ? query_parse_gpu_fields(o->gpu_fields, gf, QUERY_MAX_FIELDS, bad, sizeof bad)
                          : query_parse_app_fields(o->app_fields, af, QUERY_MAX_FIELDS, bad, sizeof bad);
    if (n == QUERY_TOO_MANY)
        return query_bad(o->as_smi, "Too many fields to query: at most %s.", QUERY_MAX_FIELDS_TEXT);
    if (n < 0)
        return query_bad(o->as_smi, "Field \"%s\" is not a valid field to query.", bad);
    enum metric_id ids[METRIC_COUNT];
    int nids = 0;
    bool want[METRIC_COUNT] = {false};
    want[M_INDEX] = want[M_STATE] = true;
    if (o->app_fields)
        want[M_UUID] = want[M_PCI_BUS_ID] = want[M_NAME] = want[M_PROC_COUNT] = true;
    for (int i = 0; o->gpu_fields && i < n; i++)
        want[gf[i]->metric] = true;
    for (int i = 0; i < METRIC_COUNT; i++)
        if (want[i])
            ids[nids++] = (enum metric_id)i;

    int rc = cmd_open_nvml(&o->nvml, true);
    if (rc != 0)
        return rc;
    struct out out;
    struct sampler *smp = NULL;
    struct sbuf b;
    struct record rec;
    char err[512];
    sbuf_init(&b);
    memset(&rec, 0, sizeof rec);
    if (out_open(&out, o->file, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        rc = EXIT_RUNTIME;
        goto out_nvml;
    }
    struct stat st;
    if (o->file && fstat(out.fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(out.fd, 0) != 0)
        util_warn("cannot truncate %s: %s", o->file, strerror(errno));
    struct sampler_opts so = {ids, nids, o->ids, 1000, o->app_fields != NULL, 0, NULL};
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        fprintf(stderr, "No GPU matches -i %s: %s\n", o->ids, err);
        rc = EXIT_USAGE;
        goto out;
    }
    uint64_t step = (uint64_t)(o->loop_ms * 1e6), next = util_mono_ns();
    for (bool first = true; sig_wait(query_signals, 0, NULL) == 0; first = false) {
        sampler_sample(smp, &rec);
        query_render(o, gf, af, n, &rec, sampler_device_count(smp), first && !o->noheader, &b);
        if (out_write(&out, b.data, b.len) != 0 || step == 0)
            break;
        sbuf_reset(&b);
        util_next_deadline(&next, step);
        if (sig_wait(query_signals, next, NULL) != 0)
            break;
    }
out:
    sampler_close(smp);
    if (out_close(&out) != 0 && rc == EXIT_OK)
        rc = EXIT_RUNTIME;
out_nvml:
    sbuf_free(&b);
    nvml_close();
    return rc;
}

int cmd_query(int argc, char **argv, bool as_smi)
{
    struct query_opts o = {.as_smi = as_smi};
    int first, rc = opt_parse(&cmd_query_entry, argc, argv, query_set, &o, &first);
    if (rc != 0)
        return rc == OPT_DONE ? EXIT_OK : rc;
    if (first < argc)
        return query_bad(as_smi, "Invalid argument \"%s\".", argv[first]);
    if ((rc = query_check(&o)) != 0)
        return rc;
    return query_run(&o);
}
