/*
 * cmd_query.c: `gpumon query`, and gpumon invoked as `nvidia-smi`: answers
 * nvidia-smi's --query-gpu / --query-compute-apps with --format=csv in
 * nvidia-smi's exact text (", " between fields, "name [unit]" headers,
 * units after values unless nounits, its markers), so scripts that parse
 * nvidia-smi keep working, at a fraction of the cost. Values come from the
 * sampler like every other output (records, plus sampler_attrs for the
 * attributes only this mode shows); this file parses nvidia-smi's options
 * and wires the field table (query_fields.h) to query_format.c. Invoked as
 * nvidia-smi, failures print nvidia-smi's texts on standard output and exit
 * with its documented statuses (cmd_query_smi_status); `gpumon query` keeps
 * gpumon's messages and statuses (exitcodes.h).
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
#include "query_format.h"
#include "sampler.h"
#include "sig.h"

#define QUERY_MAX_FIELDS 512
#define QUERY_MAX_FIELDS_TEXT "512"

enum { Q_GPU = 1, Q_APPS, Q_FORMAT, Q_ID, Q_FILE, Q_LOOP, Q_LOOP_MS, Q_HELP_GPU, Q_HELP_APPS };

static const struct opt query_opts[] = {
    {"query-gpu", NULL, "FIELDS", Q_GPU, "GPU fields, comma-separated (--help-query-gpu lists them)"},
    {"query-compute-apps", NULL, "FIELDS", Q_APPS,
     "compute processes: timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, used_memory"},
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
             "invoked as nvidia-smi, which also prints nvidia-smi's summary table without a query\n"
             "and its GPU list with -L, both with -i IDS and -l SEC or -lms MS). Options take their value\n"
             "after = or as the next word.",
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

static void query_help_names(const char *name, const char *const *aliases, int naliases)
{
    printf("\"%s\"", name);
    for (int a = 0; a < naliases && aliases[a]; a++)
        printf(" or \"%s\"", aliases[a]);
    putchar('\n');
}

static void query_help_fields(bool apps)
{
    printf("List of valid properties to query for the switch \"%s\":\n\n", apps ? "--query-compute-apps"
                                                                                   : "--query-gpu");
    if (apps) {
        for (int i = 0; i < QA_COUNT; i++) {
            const struct query_app_field_row *f = &query_app_fields[i];
            query_help_names(f->name, f->aliases, 2);
            printf("%s%s%s%s.\n\n", f->help, *f->unit ? " (" : "", f->unit, *f->unit ? ")" : "");
        }
        return;
    }
    for (size_t i = 0; i < query_gpu_nfields; i++) {
        const struct query_field *f = &query_gpu_fields[i];
        query_help_names(f->name, f->aliases, 2);
        printf("%s%s%s%s.%s\n\n", f->help, *f->unit ? " (" : "", f->unit, *f->unit ? ")" : "",
               f->source == QSRC_FIXED ? " gpumon reads no source for it and prints what nvidia-smi prints when the "
                                         "driver cannot tell." : "");
    }
}

/* A usage error: gpumon's message on standard error; as nvidia-smi, on
 * standard output (where nvidia-smi prints its errors) with its hint. Both
 * exit 2 (nvidia-smi: "invalid argument"). */
static int query_bad(bool as_smi, const char *fmt, const char *what)
{
    FILE *f = as_smi ? stdout : stderr;
    fprintf(f, fmt, what);
    if (as_smi)
        fprintf(f, "\nPlease run 'nvidia-smi -h' for help.\n");
    else
        fprintf(f, "\nPlease run 'gpumon query --help' for usage information.\n");
    return EXIT_USAGE;
}

/* An option or command nvidia-smi has and gpumon does not (dmon, pmon, -q, topo...): as nvidia-smi,
 * gpumon's own refusal, on standard error, since nvidia-smi would have answered; else query_bad's. */
static int query_unknown(bool as_smi, const char *what)
{
    if (!as_smi)
        return query_bad(false, "Invalid argument \"%s\".", what);
    fprintf(stderr, "gpumon (installed as nvidia-smi) answers --query-gpu and --query-compute-apps with "
            "--format=csv, -i, -l, -lms and -f, -L, and the summary table without arguments; \"%s\" is not "
            "supported. Run gpumon for monitoring.\nPlease run 'nvidia-smi -h' for help.\n", what);
    return EXIT_USAGE;
}

/* nvidia-smi's exit status for an NVML return code (its man page: 2 invalid
 * argument, 3 not supported, 4 no permission, 6 not found, 8 external power,
 * 9 driver not loaded, 10 interrupt issue, 12 no NVML library, 14 infoROM
 * corrupted, 15 GPU fell off the bus, 255 anything else). */
int cmd_query_smi_status(int code)
{
    switch (code) {
    case NVML_ERROR_INVALID_ARGUMENT: case NVML_ERROR_NOT_SUPPORTED: case NVML_ERROR_NO_PERMISSION:
    case NVML_ERROR_NOT_FOUND: case NVML_ERROR_INSUFFICIENT_POWER: case NVML_ERROR_DRIVER_NOT_LOADED:
    case NVML_ERROR_LIBRARY_NOT_FOUND: case NVML_ERROR_CORRUPTED_INFOROM: case NVML_ERROR_GPU_IS_LOST:
        return code;
    case NVML_ERROR_IRQ_ISSUE: return 10;
    case NVML_ERROR_RESET_REQUIRED: return NVML_ERROR_GPU_IS_LOST;
    default: return 255;
    }
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
    case Q_FILE:
        if (!*v)
            return query_bad(o->as_smi, "%s", "Option \"-f\" needs a file name, not an empty one.");
        o->file = v;
        return 0;
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
        return query_unknown(o->as_smi, v);
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
    char *fmt = xstrdup(o->format);   /* every word checked, however long the list */
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
        else {
            int rc = query_bad(o->as_smi, "\"%s\" is not a valid format option: use "
                               "--format=csv[,noheader][,nounits].", t);
            free(fmt);
            return rc;
        }
    }
    free(fmt);
    if (!csv)
        return query_bad(o->as_smi, "\"%s\" is not a valid format: use --format=csv[,noheader][,nounits].",
                         o->format);
    return 0;
}

/* The timestamp field: the record's time, local, to the millisecond. */
static void query_timestamp(struct sbuf *b, const struct record *r)
{
    struct tm tm;
    char ts[64];
    time_t t = r->time.tv_sec;
    localtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
    sbuf_printf(b, "%s.%03d", ts, (int)(r->time.tv_nsec / 1000000));
}

static void query_gpu_value(struct sbuf *b, const struct query_field *f, const struct record *r,
                            const struct record_gpu *g, const struct gpu_attrs *a, bool units, unsigned count)
{
    switch (f->source) {
    case QSRC_TIMESTAMP: query_timestamp(b, r); return;
    case QSRC_COUNT: sbuf_put_int(b, count); return;
    case QSRC_ATTR: query_format_value(b, f, &a->v[f->id], units); return;
    case QSRC_METRIC: query_format_value(b, f, &g->v[f->id], units); return;
    case QSRC_FIXED: query_format_value(b, f, NULL, units); return;
    }
}

static void query_header(struct sbuf *b, const struct query_field *const *gf, const enum query_app_field *af,
                         int n)
{
    for (int i = 0; i < n; i++) {
        const char *name = gf ? gf[i]->name : query_app_fields[af[i]].name;
        const char *unit = gf ? gf[i]->unit : query_app_fields[af[i]].unit;
        sbuf_printf(b, "%s%s%s%s%s", i ? ", " : "", name, *unit ? " [" : "", unit, *unit ? "]" : "");
    }
    sbuf_putc(b, '\n');
}

static void query_text(struct sbuf *b, const struct value *v)
{
    if (v->state == VS_OK)
        sbuf_puts(b, v->u.s);
    else
        query_format_marker(b, v, NULL);
}

static void query_apps(struct sbuf *b, const struct record *r, const enum query_app_field *af, int n, bool units)
{
    static const struct value none = {.state = VS_NONE};
    for (unsigned gi = 0; gi < r->ngpus; gi++) {
        const struct record_gpu *g = &r->gpus[gi];
        if (g->procs_omitted)   /* the rows stay nvidia-smi's; the cap is said beside them */
            util_warn("GPU %u runs %u processes; the %u using the most memory are listed (%u left out)", g->index,
                      g->nprocs + g->procs_omitted, g->nprocs, g->procs_omitted);
        for (unsigned p = 0; p < g->nprocs; p++) {
            const struct record_proc *pr = &g->procs[p];
            if (pr->kinds && !(pr->kinds & NVML_PROC_COMPUTE))
                continue;   /* a graphics-only process (Xorg...): nvidia-smi lists compute processes here */
            for (int i = 0; i < n; i++) {
                if (i)
                    sbuf_puts(b, ", ");
                switch (af[i]) {
                case QA_TIMESTAMP: query_timestamp(b, r); break;
                case QA_GPU_NAME: query_text(b, &g->v[M_NAME]); break;
                case QA_GPU_BUS_ID: query_text(b, &g->v[M_PCI_BUS_ID]); break;
                case QA_GPU_SERIAL: query_text(b, &g->v[M_SERIAL]); break;
                case QA_GPU_UUID: query_text(b, &g->v[M_UUID]); break;
                case QA_PID: sbuf_put_int(b, pr->pid); break;
                case QA_NAME:
                    if (pr->name[0])
                        sbuf_puts(b, pr->name);
                    else
                        query_format_marker(b, &none, NULL);
                    break;
                case QA_MEMORY:
                    if (pr->used_mib < 0)
                        query_format_marker(b, &none, NULL);
                    else
                        sbuf_printf(b, "%lld%s", pr->used_mib, units ? " MiB" : "");
                    break;
                case QA_COUNT: break;
                }
            }
            sbuf_putc(b, '\n');
        }
    }
}

/* What a query reads: the metrics and attributes its fields need. */
struct query_plan {
    const struct query_field *gf[QUERY_MAX_FIELDS];
    enum query_app_field af[QUERY_MAX_FIELDS];
    int n;
    enum metric_id ids[METRIC_COUNT];
    int nids;
    bool attrs[GA_COUNT];
    bool any_attr;
};

/* Writes one answer (the header first, if asked) for rec into b. */
static void query_render(const struct query_opts *o, const struct query_plan *q, struct sampler *smp,
                         const struct record *rec, bool header, struct sbuf *b)
{
    if (header)
        query_header(b, o->gpu_fields ? q->gf : NULL, q->af, q->n);
    if (!o->gpu_fields) {
        query_apps(b, rec, q->af, q->n, !o->nounits);
        return;
    }
    struct gpu_attrs attrs;
    memset(&attrs, 0, sizeof attrs);
    for (unsigned g = 0; g < rec->ngpus; g++) {
        if (q->any_attr)
            sampler_attrs(smp, g, q->attrs, &attrs);
        for (int i = 0; i < q->n; i++) {
            if (i)
                sbuf_puts(b, ", ");
            query_gpu_value(b, q->gf[i], rec, &rec->gpus[g], &attrs, !o->nounits, sampler_device_count(smp));
        }
        sbuf_putc(b, '\n');
    }
}

/* As nvidia-smi: a GPU whose handle NVML cannot give (lost, or any other
 * failure) ends the query the way nvidia-smi does, with its message and
 * status instead of a row. Returns 0 when every GPU answers. */
static int query_smi_handles(const struct sampler *smp, const struct record *rec)
{
    for (unsigned g = 0; g < rec->ngpus; g++) {
        const struct value *st = &rec->gpus[g].v[M_STATE], *bus = &rec->gpus[g].v[M_PCI_BUS_ID];
        int code = metric_gpu_lost(rec->gpus[g].v) ? NVML_ERROR_GPU_IS_LOST : st->state == VS_OK ? 0 : st->code;
        if (code == 0 && st->state == VS_OK)
            code = sampler_handle_rc(smp, g);   /* a handle refused for another reason (permission...) */
        if (code == 0 && st->state == VS_OK)
            continue;
        char id[64];
        if (bus->state == VS_OK)   /* nvidia-smi names the GPU by its bus id with a 4-digit domain */
            snprintf(id, sizeof id, "%s", strlen(bus->u.s) > 12 ? bus->u.s + 4 : bus->u.s);
        else
            snprintf(id, sizeof id, " %u", rec->gpus[g].index);
        if (code == NVML_ERROR_GPU_IS_LOST)
            printf("Unable to determine the device handle for GPU%s: GPU is lost.  Reboot the system to recover "
                   "this GPU\n", id);
        else
            printf("Unable to determine the device handle for GPU%s: %s\n", id, nvml_code_text(code));
        return cmd_query_smi_status(code ? code : NVML_ERROR_UNKNOWN);
    }
    return 0;
}

/* Opens NVML; as nvidia-smi, failures print nvidia-smi's texts and return
 * its statuses (with --sim or --scenario, gpumon's own). */
static int query_open(const struct query_opts *o)
{
    if (!o->as_smi || o->nvml.sim || o->nvml.scenario)
        return cmd_open_nvml(&o->nvml, true);
    return cmd_smi_open(o->nvml.nvml_path);
}

/* Parses the field list into q: 0, or a usage error's status. */
static int query_plan(const struct query_opts *o, struct query_plan *q)
{
    char bad[128];
    memset(q, 0, sizeof *q);
    q->n = o->gpu_fields ? query_parse_gpu_fields(o->gpu_fields, q->gf, QUERY_MAX_FIELDS, bad, sizeof bad)
                         : query_parse_app_fields(o->app_fields, q->af, QUERY_MAX_FIELDS, bad, sizeof bad);
    if (q->n == QUERY_TOO_MANY)
        return query_bad(o->as_smi, "Too many fields to query: at most %s.", QUERY_MAX_FIELDS_TEXT);
    if (q->n < 0 && o->as_smi) {
        printf("Field \"%s\" is not a valid field to query.\n\n", bad);
        return EXIT_USAGE;
    }
    if (q->n < 0)
        return query_bad(false, "Field \"%s\" is not a valid field to query.", bad);
    bool want[METRIC_COUNT] = {false};
    want[M_INDEX] = want[M_STATE] = want[M_PCI_BUS_ID] = true;
    if (o->app_fields)
        want[M_UUID] = want[M_NAME] = want[M_SERIAL] = want[M_PROC_COUNT] = true;
    for (int i = 0; o->gpu_fields && i < q->n; i++) {
        if (q->gf[i]->source == QSRC_METRIC)
            want[q->gf[i]->id] = true;
        if (q->gf[i]->source == QSRC_ATTR)
            q->attrs[q->gf[i]->id] = q->any_attr = true;
    }
    for (int i = 0; i < METRIC_COUNT; i++)
        if (want[i])
            q->ids[q->nids++] = (enum metric_id)i;
    return 0;
}

static int query_run(const struct query_opts *o)
{
    struct query_plan *q = xcalloc(1, sizeof *q);
    int rc = query_plan(o, q);
    if (rc != 0 || (rc = query_open(o)) != 0) {
        free(q);
        return rc;
    }
    struct out out;
    struct sampler *smp = NULL;
    struct sbuf b;
    struct record rec;
    char err[512];
    sbuf_init(&b);
    memset(&rec, 0, sizeof rec);
    if ((rc = out_open(&out, o->file, sig_pending, query_signals, err, sizeof err)) != 0) {
        if (rc != OUT_STOPPED)   /* stopped before the first answer: exit 0, as a loop's end */
            fprintf(stderr, "%s\n", err);
        rc = rc == OUT_STOPPED ? EXIT_OK : EXIT_RUNTIME;
        goto out_nvml;
    }
    struct stat st;
    if (o->file && fstat(out.fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(out.fd, 0) != 0)
        util_warn("cannot truncate %s: %s", o->file, strerror(errno));
    struct sampler_opts so = {q->ids, q->nids, o->ids, 1000, o->app_fields != NULL, 0, NULL};
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        if (o->as_smi)
            printf("No devices were found\n");
        else
            /* the sampler words it for --gpus; here the option is -i */
            fprintf(stderr, "gpumon query: -i %s: %s\n", o->ids, strncmp(err, "--gpus: ", 8) ? err : err + 8);
        rc = o->as_smi ? NVML_ERROR_NOT_FOUND : EXIT_USAGE;
        goto out;
    }
    uint64_t step = o->loop_ms > 0 ? sampler_step_ns(smp, o->loop_ms) : 0, next = util_mono_ns();
    for (bool first = true; sig_wait(query_signals, 0, NULL) == 0; first = false) {
        sampler_sample(smp, &rec);
        if (o->as_smi && (rc = query_smi_handles(smp, &rec)) != 0)
            break;
        query_render(o, q, smp, &rec, first && !o->noheader, &b);
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
    free(q);
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
        return query_unknown(as_smi, argv[first]);
    if ((rc = query_check(&o)) != 0)
        return rc;
    return query_run(&o);
}
