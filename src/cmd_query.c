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

#define QUERY_MAX_FIELDS 128

struct query_opts {
    const char *gpu_fields, *app_fields, *format, *ids, *file;
    double loop_ms;
    bool noheader, nounits;
    struct cmd_nvml_opts nvml;
};

static volatile sig_atomic_t query_stop;

static void query_on_signal(int sig)
{
    (void)sig;
    query_stop = 1;
}

static const char query_help[] =
    "Usage: gpumon query --query-gpu=FIELDS --format=csv[,noheader][,nounits] [OPTIONS]\n"
    "       gpumon query --query-compute-apps=FIELDS --format=csv[,noheader][,nounits] [OPTIONS]\n"
    "Answer nvidia-smi style queries in nvidia-smi's CSV format (also when gpumon is\n"
    "invoked as nvidia-smi).\n\n"
    "  --query-gpu=FIELDS           GPU fields, comma-separated (--help-query-gpu lists them)\n"
    "  --query-compute-apps=FIELDS  pid, process_name, used_memory, gpu_uuid, gpu_bus_id, gpu_name\n"
    "  --format=csv[,noheader][,nounits]\n"
    "  -i, --id=ID[,ID...]          GPUs by index, UUID or PCI bus id\n"
    "  -l, --loop=SEC               repeat every SEC seconds until interrupted\n"
    "  -lms, --loop-ms=MS           repeat every MS milliseconds until interrupted\n"
    "  -f, --filename=FILE          write to FILE instead of standard output\n"
    "  --help-query-gpu             describe every --query-gpu field\n"
    "  --help-query-compute-apps    describe every --query-compute-apps field\n"
    CMD_NVML_HELP
    "  -h, --help                   this help\n";

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

/* Takes the value of option name from "--name=value" or the next argument. */
static const char *query_value(int argc, char **argv, int *i, const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (!strncmp(arg, name, n) && arg[n] == '=')
        return arg + n + 1;
    if (!strcmp(arg, name) && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int query_bad(bool as_smi, const char *fmt, const char *what)
{
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nPlease run '%s --help' for usage information.\n", as_smi ? "nvidia-smi" : "gpumon query");
    return EXIT_USAGE;
}

static int query_parse(int argc, char **argv, struct query_opts *o, bool as_smi)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if ((v = query_value(argc, argv, &i, a, "--query-gpu")))
            o->gpu_fields = v;
        else if ((v = query_value(argc, argv, &i, a, "--query-compute-apps")))
            o->app_fields = v;
        else if ((v = query_value(argc, argv, &i, a, "--format")))
            o->format = v;
        else if ((v = query_value(argc, argv, &i, a, "--id")) || (v = query_value(argc, argv, &i, a, "-i")))
            o->ids = v;
        else if ((v = query_value(argc, argv, &i, a, "--filename")) || (v = query_value(argc, argv, &i, a, "-f")))
            o->file = v;
        else if ((v = query_value(argc, argv, &i, a, "--loop-ms")) || (v = query_value(argc, argv, &i, a, "-lms"))) {
            unsigned long long ms;
            if (util_parse_uint(v, 1ull << 40, &ms) != 0 || ms < 10)
                return query_bad(as_smi, "Invalid loop interval \"%s\": give milliseconds, at least 10.", v);
            o->loop_ms = (double)ms;
        } else if ((v = query_value(argc, argv, &i, a, "--loop")) || (v = query_value(argc, argv, &i, a, "-l"))) {
            unsigned long long s;
            if (util_parse_uint(v, 1ull << 30, &s) != 0 || s == 0)
                return query_bad(as_smi, "Invalid loop interval \"%s\": give whole seconds, at least 1.", v);
            o->loop_ms = (double)s * 1000;
        } else if (!strcmp(a, "--help-query-gpu") || !strcmp(a, "--help-query-compute-apps")) {
            query_help_fields(!strcmp(a, "--help-query-compute-apps"));
            return -1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(query_help, stdout);
            return -1;
        } else if (!strcmp(a, "--sim")) {
            o->nvml.sim = true;
        } else if ((v = query_value(argc, argv, &i, a, "--nvml"))) {
            cmd_nvml_option(&o->nvml, CMD_OPT_NVML, v);
        } else if ((v = query_value(argc, argv, &i, a, "--scenario"))) {
            cmd_nvml_option(&o->nvml, CMD_OPT_SCENARIO, v);
        } else if (as_smi) {
            return query_bad(true, "gpumon (installed as nvidia-smi) answers only --query-gpu and "
                             "--query-compute-apps with --format=csv, -i, -l, -lms and -f; \"%s\" is not supported. "
                             "Run gpumon for monitoring.", a);
        } else {
            return query_bad(false, "Invalid argument \"%s\".", a);
        }
    }
    if (!o->gpu_fields && !o->app_fields)
        return query_bad(as_smi, "%s", "Nothing to query: give --query-gpu=FIELDS or --query-compute-apps=FIELDS.");
    if (o->gpu_fields && o->app_fields)
        return query_bad(as_smi, "%s", "Give --query-gpu or --query-compute-apps, not both.");
    if (!o->format)
        return query_bad(as_smi, "%s", "The --format=csv option is required with --query-gpu and "
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
            return query_bad(as_smi, "\"%s\" is not a valid format option: use --format=csv[,noheader][,nounits].",
                             t);
    }
    if (!csv)
        return query_bad(as_smi, "\"%s\" is not a valid format: use --format=csv[,noheader][,nounits].", o->format);
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

static int query_run(const struct query_opts *o, bool as_smi)
{
    const struct query_field *gf[QUERY_MAX_FIELDS];
    enum query_app_field af[QUERY_MAX_FIELDS];
    char bad[128];
    int n = o->gpu_fields ? query_parse_gpu_fields(o->gpu_fields, gf, QUERY_MAX_FIELDS, bad, sizeof bad)
                          : query_parse_app_fields(o->app_fields, af, QUERY_MAX_FIELDS, bad, sizeof bad);
    if (n < 0)
        return query_bad(as_smi, "Field \"%s\" is not a valid field to query.", bad);
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
    char err[512];
    if (out_open(&out, o->file, err, sizeof err) != 0) {
        nvml_close();
        fprintf(stderr, "%s\n", err);
        return EXIT_RUNTIME;
    }
    if (o->file && ftruncate(out.fd, 0) != 0)
        util_warn("cannot truncate %s: %s", o->file, strerror(errno));
    struct sampler_opts so = {ids, nids, o->ids, 1000, o->app_fields != NULL, 0};
    struct sampler *smp;
    if (sampler_open(&smp, &so, err, sizeof err) != 0) {
        out_close(&out);
        nvml_close();
        fprintf(stderr, "No GPU matches -i %s: %s\n", o->ids, err);
        return EXIT_USAGE;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = query_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct sbuf b;
    struct record rec;
    sbuf_init(&b);
    memset(&rec, 0, sizeof rec);
    uint64_t step = (uint64_t)(o->loop_ms * 1e6), next = util_mono_ns();
    for (bool first = true; !query_stop; first = false) {
        sampler_sample(smp, &rec);
        if (first && !o->noheader)
            query_header(&b, o, o->gpu_fields ? gf : NULL, af, n);
        if (o->gpu_fields) {
            for (unsigned g = 0; g < rec.ngpus; g++) {
                for (int i = 0; i < n; i++) {
                    if (i)
                        sbuf_puts(&b, ", ");
                    query_gpu_value(&b, gf[i], &rec, &rec.gpus[g], !o->nounits, sampler_device_count(smp));
                }
                sbuf_putc(&b, '\n');
            }
        } else {
            query_apps(&b, &rec, af, n, !o->nounits);
        }
        if (out_write(&out, b.data, b.len) != 0 || step == 0)
            break;
        sbuf_reset(&b);
        for (uint64_t st = step; !query_stop && util_sleep_next(&next, st) == EINTR; st = 0)
            ;
    }
    sbuf_free(&b);
    sampler_close(smp);
    nvml_close();
    out_close(&out);
    return EXIT_OK;
}

int cmd_query(int argc, char **argv, bool as_smi)
{
    struct query_opts o;
    int rc = query_parse(argc, argv, &o, as_smi);
    if (rc != 0)
        return rc < 0 ? EXIT_OK : rc;
    return query_run(&o, as_smi);
}
