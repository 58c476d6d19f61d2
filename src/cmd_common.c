/*
 * cmd_common.c: the NVML options every command takes, finding the bundled
 * simulator and scenarios (next to the binary in a build tree, under the
 * binary's own prefix, then the configured one), the one place where a failure to open NVML
 * becomes a single line on stderr and a documented exit status, and the
 * small helpers every command uses: durations with their bounds, usage
 * errors, the last check of standard output.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"
#include "exitcodes.h"
#include "logread.h"
#include "logread_simd.h"
#include "logsrc.h"
#include "nvml.h"
#include "out.h"
#include "sampler.h"
#include "util.h"

#ifndef GPUMON_SIM_INSTALLED
#define GPUMON_SIM_INSTALLED "/usr/local/lib/gpumon/sim/libnvidia-ml.so.1"
#endif
#ifndef GPUMON_SCENARIOS_INSTALLED
#define GPUMON_SCENARIOS_INSTALLED "/usr/local/share/gpumon/scenarios"
#endif
#ifndef GPUMON_SCENARIOS_SOURCE
#define GPUMON_SCENARIOS_SOURCE ""
#endif

const struct opt cmd_nvml_opts[] = {
    {"nvml", NULL, "PATH", CMD_OPT_NVML, "NVML library to load (default: $GPUMON_NVML, then libnvidia-ml.so.1)"},
    {"sim", NULL, NULL, CMD_OPT_SIM, "use the bundled simulated GPUs instead of a driver"},
    {"scenario", NULL, "FILE", CMD_OPT_SCENARIO,
     "simulated scenario: a path, or a bundled name such as input-bound\n(implies --sim)"},
    {NULL, NULL, NULL, 0, NULL},
};

int cmd_nvml_option(struct cmd_nvml_opts *o, int key, const char *arg)
{
    switch (key) {
    case CMD_OPT_NVML: o->nvml_path = arg; return 0;
    case CMD_OPT_SIM: o->sim = true; return 0;
    case CMD_OPT_SCENARIO: o->scenario = arg; o->sim = true; return 0;
    default: return EXIT_USAGE;   /* not an option of any table: a programming error */
    }
}

static void cmd_exe_dir(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(out, len, ".");
        return;
    }
    exe[n] = '\0';
    snprintf(out, len, "%s", dirname(exe));
}

static bool cmd_first_existing(char *out, size_t len, const char *const *candidates, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(candidates[i]);
        if (n > 0 && n < len && access(candidates[i], R_OK) == 0) {
            memcpy(out, candidates[i], n + 1);
            return true;
        }
    }
    return false;
}

bool cmd_find_part(const char *in_build, const char *installed, char *out, size_t len)
{
    char dir[PATH_MAX], build[PATH_MAX + 64], prefix[PATH_MAX + 64];
    cmd_exe_dir(dir, sizeof dir);
    snprintf(build, sizeof build, "%s/%s", dir, in_build);
    snprintf(prefix, sizeof prefix, "%s/../lib/gpumon/%s", dir, in_build);
    /* this binary's own prefix before the configured one: a copy moved elsewhere (a wheel in a venv,
     * a DESTDIR) loads its own parts, not those of another gpumon installed there */
    const char *const c[] = {build, prefix, installed};
    return cmd_first_existing(out, len, c, sizeof c / sizeof c[0]);
}

static bool cmd_find_sim(char *out, size_t len)
{
    return cmd_find_part("sim/libnvidia-ml.so.1", GPUMON_SIM_INSTALLED, out, len);
}

/* A scenario must be a regular file that can be read: a directory, a
 * device or a FIFO (which would block the simulator's read) is refused
 * here, by name, with the reason. Returns 0 or -1 with a message. */
static int cmd_check_scenario(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot open \"%s\": %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "\"%s\" is %s, not a scenario file", path,
                 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a regular file");
        return -1;
    }
    return 0;
}

static bool cmd_find_scenario(const char *name, char *out, size_t len)
{
    if (strchr(name, '/') || access(name, R_OK) == 0) {
        snprintf(out, len, "%s", name);
        return access(name, R_OK) == 0;
    }
    char dir[PATH_MAX], c[4][PATH_MAX + 96];
    cmd_exe_dir(dir, sizeof dir);
    const char *dirs[] = {GPUMON_SCENARIOS_SOURCE, GPUMON_SCENARIOS_INSTALLED, dir};
    const char *ext = strstr(name, ".scn") ? "" : ".scn";
    snprintf(c[0], sizeof c[0], "%s/%s%s", dirs[0], name, ext);
    snprintf(c[1], sizeof c[1], "%s/%s%s", dirs[1], name, ext);
    snprintf(c[2], sizeof c[2], "%s/../share/gpumon/scenarios/%s%s", dirs[2], name, ext);
    snprintf(c[3], sizeof c[3], "%s/examples/scenarios/%s%s", dirs[2], name, ext);
    const char *const cand[] = {dirs[0][0] ? c[0] : "", c[2], c[1], c[3]};   /* own prefix first, as above */
    return cmd_first_existing(out, len, cand, 4);
}

/* The few words a summary gives for a failed open, by cause (the message printed at the time says more). */
static const char *const cmd_nvml_causes[] = {
    [NVML_CAUSE_NONE] = "",
    [NVML_CAUSE_NOT_FOUND] = "the NVML library (the NVIDIA driver's libnvidia-ml.so.1) could not be loaded",
    [NVML_CAUSE_STUB] = "the NVML library found is the CUDA toolkit's stub, not the driver's",
    [NVML_CAUSE_BAD_LIBRARY] = "the NVML library found lacks functions gpumon needs",
    [NVML_CAUSE_DRIVER] = "the NVIDIA driver is not loaded",
    [NVML_CAUSE_PERMISSION] = "no permission to use the GPUs",
    [NVML_CAUSE_MISMATCH] = "the NVML library and the NVIDIA kernel driver are of different versions",
    [NVML_CAUSE_INIT] = "NVML could not be initialized",
};
static char cmd_nvml_why[160];

const char *cmd_nvml_failure(void)
{
    return cmd_nvml_why;
}

/* --sim's library and --scenario's file, found and checked; the scenario goes to the environment the
 * simulator reads. A frame of its own, gone before dlopen: its 13 kB of paths would otherwise lie under
 * the library's loading and the simulator's start, and top's stack peaked there (8 kB more resident).
 * Returns 0 with *lib the library's path (malloc'ed; NULL: o's --nvml or the default), or an exit code. */
static __attribute__((noinline)) int cmd_nvml_paths(const struct cmd_nvml_opts *o, char **lib)
{
    char sim[PATH_MAX], scen[PATH_MAX];
    *lib = NULL;
    if (o->sim && !o->nvml_path) {
        if (!cmd_find_sim(sim, sizeof sim)) {
            fprintf(stderr, "gpumon: --sim: the simulated NVML library was not found next to gpumon (sim/) "
                    "or in %s; build it (cmake --build build) or give --nvml PATH\n", GPUMON_SIM_INSTALLED);
            return EXIT_NO_LIBRARY;
        }
        *lib = xstrdup(sim);
    }
    if (o->scenario) {
        char err[PATH_MAX + 128];
        if (!cmd_find_scenario(o->scenario, scen, sizeof scen)) {
            char shorter[UTIL_SHORT + 1];
            fprintf(stderr, "gpumon: --scenario: no scenario file \"%s\" (%sgive a path, or a bundled name "
                    "such as healthy or input-bound)\n", util_short(o->scenario, shorter),
                    strlen(o->scenario) >= PATH_MAX ? "the path is too long; " : "");
            free(*lib);
            return EXIT_USAGE;
        }
        if (cmd_check_scenario(scen, err, sizeof err) != 0) {
            fprintf(stderr, "gpumon: --scenario: %s\n", err);
            free(*lib);
            return EXIT_USAGE;
        }
        setenv("GPUMON_SIM_SCENARIO", scen, 1);
    }
    return 0;
}

int cmd_open_nvml(const struct cmd_nvml_opts *o, bool require_gpu)
{
    cmd_nvml_why[0] = 0;
    char *lib;
    int rc = cmd_nvml_paths(o, &lib);
    if (rc != 0)
        return rc;
    struct nvml_failure why;
    int opened = nvml_open(lib ? lib : o->nvml_path, &why);
    free(lib);
    if (opened != 0) {
        const char *sc = getenv("GPUMON_SIM_SCENARIO");
        if (why.sim_invalid) {
            /* the simulator printed the file, line and problem just above */
            fprintf(stderr, "gpumon: the simulated GPUs could not start: %s%s%s is not a valid scenario (see the "
                    "line above; the format: docs/scenario-format.md)\n", sc && *sc ? "\"" : "",
                    sc && *sc ? sc : "the environment (GPUMON_SIM_*)", sc && *sc ? "\"" : "");
            return EXIT_USAGE;
        }
        fprintf(stderr, "gpumon: %s\n", why.message);
        unsigned c = (unsigned)why.cause < sizeof cmd_nvml_causes / sizeof *cmd_nvml_causes ? (unsigned)why.cause : 0;
        snprintf(cmd_nvml_why, sizeof cmd_nvml_why, "%s", c ? cmd_nvml_causes[c] : "NVML could not be opened");
        if (why.cause == NVML_CAUSE_INIT)
            snprintf(cmd_nvml_why + strlen(cmd_nvml_why), sizeof cmd_nvml_why - strlen(cmd_nvml_why), " (%s, code %d)",
                     nvml_code_text(why.code), why.code);
        return why.cause == NVML_CAUSE_NOT_FOUND || why.cause == NVML_CAUSE_STUB ||
                       why.cause == NVML_CAUSE_BAD_LIBRARY
                   ? EXIT_NO_LIBRARY
                   : EXIT_INIT;
    }
    if (o->sim) {
        const char *sc = getenv("GPUMON_SIM_SCENARIO");
        fprintf(stderr, "gpumon: running on simulated GPUs (%s%s), not a real driver\n",
                sc && *sc ? "scenario " : "built-in default scenario", sc && *sc ? sc : "");
    }
    unsigned count = 0;
    bool simulated = o->sim || (nvml.dl && dlsym(nvml.dl, GPUMON_SIM_CLOCK_SYMBOL));
    if (require_gpu && simulated && (nvml.get_count(&count) != NVML_SUCCESS || count == 0)) {
        const char *sc = getenv("GPUMON_SIM_SCENARIO");
        fprintf(stderr, "gpumon: the simulated scenario %s%s%s declares no GPU, so there is nothing to watch; give "
                "one with gpu blocks (--scenario healthy; the format: docs/scenario-format.md)\n",
                sc && *sc ? "\"" : "", sc && *sc ? sc : "(GPUMON_SIM_*)", sc && *sc ? "\"" : "");
        snprintf(cmd_nvml_why, sizeof cmd_nvml_why, "NVML reports no GPU on this machine (the simulated scenario "
                 "declares none)");
        nvml_close();
        return EXIT_NO_GPU;
    }
    if (require_gpu && (nvml.get_count(&count) != NVML_SUCCESS || count == 0)) {
        fprintf(stderr, "gpumon: NVML %s%s%sreports no GPU on this machine. In a container, start it with GPUs "
                "(docker run --gpus all, or NVIDIA_VISIBLE_DEVICES); on a host, check that the GPUs are "
                "visible (lspci | grep -i nvidia) and not excluded by the driver. To try gpumon without a GPU: "
                "gpumon --sim\n", nvml.driver_version[0] ? "(driver " : "", nvml.driver_version[0] ?
                nvml.driver_version : "", nvml.driver_version[0] ? ") " : "");
        snprintf(cmd_nvml_why, sizeof cmd_nvml_why, "NVML reports no GPU on this machine");
        nvml_close();
        return EXIT_NO_GPU;
    }
    return 0;
}

UTIL_HOT void cmd_sample(struct sampler *s, struct record *rec, uint64_t step)
{
    uint64_t t0 = util_mono_ns();
    sampler_sample(s, rec);
    uint64_t took = util_mono_ns() - t0;
    if (took > step && took > 1000000000ull)
        util_warn("a sample took %.1f s (interval %.3g s): an NVML call was slow or hung; the records have a "
                  "gap there and sampling goes on", (double)took / 1e9, (double)step / 1e9);
}

/* Formats ms as the shortest of 10ms, 1.5s, 2m, 24h. */
static void cmd_format_ms(double ms, char *out, size_t len)
{
    if (ms >= 3600000 && fmod(ms, 3600000) == 0)
        snprintf(out, len, "%gh", ms / 3600000);
    else if (ms >= 60000 && fmod(ms, 60000) == 0)
        snprintf(out, len, "%gm", ms / 60000);
    else if (ms >= 1000)
        snprintf(out, len, "%gs", ms / 1000);
    else
        snprintf(out, len, "%gms", ms);
}

int cmd_parse_duration(const char *cmd, const char *name, const char *arg, double min_ms, double max_ms,
                       double *ms)
{
    char lim[32];   /* formatted only for a message: a valid duration maps none of libm's fmod */
    if (util_parse_duration_ms(arg, ms) != 0)
        return opt_usage_error(cmd, "%s: \"%.200s\" is not a duration (examples: 1s, 250ms, 2m, 1h)", name, arg);
    if (*ms < min_ms) {
        cmd_format_ms(min_ms, lim, sizeof lim);
        return opt_usage_error(cmd, "%s: %.200s is below the minimum of %s", name, arg, lim);
    }
    if (*ms > max_ms) {
        cmd_format_ms(max_ms, lim, sizeof lim);
        return opt_usage_error(cmd, "%s: %.200s is above the maximum of %s", name, arg, lim);
    }
    return 0;
}

void *cmd_load_module(const char *cmd, const char *what, const char *file, const char *installed,
                      const char *version_sym)
{
    char path[PATH_MAX];
    if (!cmd_find_part(file, installed, path, sizeof path)) {
        fprintf(stderr, "gpumon %s: %s %s was not found next to gpumon or in %s; build it (cmake --build build) "
                "or reinstall gpumon\n", cmd, what, file, installed);
        return NULL;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "gpumon %s: cannot load %s %s: %s\n", cmd, what, path, dlerror());
        return NULL;
    }
    const char *version = dlsym(dl, version_sym);
    if (!version || strcmp(version, GPUMON_VERSION) != 0) {
        fprintf(stderr, "gpumon %s: %s %s is not gpumon %s's (version %s); reinstall gpumon\n", cmd, what, path,
                GPUMON_VERSION, version ? version : "unknown");
        dlclose(dl);
        return NULL;
    }
    return dl;
}

/* The simdjson module, or NULL with why in err. */
static const struct logread_simd_ops *cmd_simd_module(char *err, size_t errlen)
{
#ifndef GPUMON_HAVE_SIMDJSON
    snprintf(err, errlen, "this gpumon was built without simdjson (libsimdjson-dev 3.0 or later, docs/building.md)");
    return NULL;
#else
    char path[PATH_MAX];
    if (!cmd_find_part("gpumon-simdjson.so", GPUMON_SIMDJSON_INSTALLED, path, sizeof path)) {
        snprintf(err, errlen, "gpumon-simdjson.so was not found next to gpumon or in %s", GPUMON_SIMDJSON_INSTALLED);
        return NULL;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        snprintf(err, errlen, "cannot load %s: %s", path, dlerror());
        return NULL;
    }
    const struct logread_simd_ops *ops = dlsym(dl, "logread_simd_table");
    if (!ops || strcmp(ops->version, GPUMON_VERSION) != 0 || ops->record_size != sizeof(struct record) ||
        ops->gpu_size != sizeof(struct record_gpu) || ops->rank_size != sizeof(struct record_rank)) {
        snprintf(err, errlen, "%s is not gpumon %s's (version %s); reinstall gpumon", path, GPUMON_VERSION,
                 ops ? ops->version : "unknown");
        dlclose(dl);
        return NULL;
    }
    return ops;   /* stays loaded */
#endif
}

int cmd_log_reader(const char *cmd)
{
    static bool done;
    static int status;
    if (done)
        return status;
    done = true;
    const char *threads = getenv("GPUMON_LOG_THREADS");
    if (threads && threads[0]) {   /* how many logs read ahead in a thread of their own (logread.h) */
        unsigned long long n;
        if (util_parse_uint(threads, 4096, &n) != 0) {
            fprintf(stderr, "gpumon %s: GPUMON_LOG_THREADS=%.100s: give a number of logs from 0 (no reader "
                    "threads) to 4096\n", cmd, threads);
            return status = EXIT_USAGE;
        }
        logread_threads_set((unsigned)n);
    }
    const char *want = getenv("GPUMON_LOG_READER");
    char err[PATH_MAX + 256];
    if (want && strcmp(want, "cjson") == 0)
        return status = 0;
    if (want && want[0] && strcmp(want, "auto") != 0 && strcmp(want, "simdjson") != 0) {
        fprintf(stderr, "gpumon %s: GPUMON_LOG_READER=%.100s: give cjson, simdjson or auto\n", cmd, want);
        return status = EXIT_USAGE;
    }
    const struct logread_simd_ops *ops = cmd_simd_module(err, sizeof err);
    if (ops) {
        logread_simd_use(ops);
        return status = 0;
    }
    if (want && strcmp(want, "simdjson") == 0) {   /* asked for: say why not */
        fprintf(stderr, "gpumon %s: GPUMON_LOG_READER=simdjson: %s\n", cmd, err);
        return status = EXIT_RUNTIME;
    }
    return status = 0;   /* the cJSON path reads the same, slower */
}

int cmd_run_module(const char *cmd, const char *what, const char *file, const char *installed,
                   const char *version_sym, const char *entry_sym, int argc, char **argv)
{
    void *dl = cmd_load_module(cmd, what, file, installed, version_sym);
    if (!dl)
        return EXIT_RUNTIME;
    int (*entry)(int, char **) = NULL;
    *(void **)&entry = dlsym(dl, entry_sym);
    if (!entry) {
        fprintf(stderr, "gpumon %s: %s lacks %s; reinstall gpumon\n", cmd, what, entry_sym);
        dlclose(dl);
        return EXIT_RUNTIME;
    }
    return entry(argc, argv);
}

int cmd_parse_job_dir(const char *cmd, const char *v, const char **out)
{
    struct stat st;
    if (stat(v, &st) != 0)
        return opt_usage_error(cmd, "--hpc-job-mapping-dir %.200s: %s", v, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return opt_usage_error(cmd, "--hpc-job-mapping-dir %.200s: not a directory", v);
    *out = v;
    return 0;
}

int cmd_parse_gpus(const char *cmd, const char *arg, const char **out)
{
    if (!arg[strspn(arg, ", \t")])
        return opt_usage_error(cmd, "--gpus: the list names no GPU (give indices, UUIDs or PCI bus ids)");
    *out = arg;
    return 0;
}

int cmd_parse_interval(const char *cmd, const char *arg, double *ms)
{
    return cmd_parse_duration(cmd, "--interval", arg, CMD_INTERVAL_MIN_MS, CMD_INTERVAL_MAX_MS, ms);
}

/* What a log's first line says it holds: "jsonl", "csv", "text" (gpumon's
 * formats: a text record begins with its RFC 3339 time), or NULL. */
static const char *cmd_log_format(const char *line)
{
    static const char stamp[] = "dddd-dd-ddTdd:dd:dd";
    if (line[0] == '{')
        return "jsonl";
    if (!strncmp(line, "timestamp,hostname", 18))
        return "csv";
    for (size_t i = 0; stamp[i]; i++)
        if (stamp[i] == 'd' ? !isdigit((unsigned char)line[i]) : line[i] != stamp[i])
            return NULL;
    return "text";
}

int cmd_check_append(const char *cmd, const char *path, const char *format, const char *header)
{
    struct stat st;
    if (!path || !strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return 0;
    char err[1024], shorter[UTIL_SHORT + 1];
    struct logsrc *src;
    char *line = NULL;
    size_t len;
    bool complete;
    int got = -1;
    bool opened = logsrc_open(&src, path, err, sizeof err) == 0;
    if (opened)
        while ((got = logsrc_line(src, &line, &len, &complete, err, sizeof err)) == 1 && !line[0])
            ;   /* blank lines before the first record */
    const char *has = got == 1 ? cmd_log_format(line) : NULL;
    bool zstd = out_is_zstd_path(path);
    int rc = 0;
    const char *name = util_short(path, shorter);
    if (got >= 0 && logsrc_compressed(src) != zstd) {
        fprintf(stderr, "gpumon %s: %s is %s, but gpumon writes %s there (a name ending in .zst is "
                "compressed): appending would leave a file no reader can take; choose another file\n", cmd, name,
                zstd ? "not zstd-compressed" : "zstd-compressed", zstd ? "zstd" : "plain text");
        rc = EXIT_RUNTIME;
    } else if (got < 0) {
        fprintf(stderr, "gpumon %s: %s cannot be appended to: %s\n", cmd, name, err);
        rc = EXIT_RUNTIME;
    } else if (got == 1 && !has) {
        fprintf(stderr, "gpumon %s: %s is not a gpumon log (its first line begins \"%.40s\"): appending %s records "
                "would mix them into another file; choose another file\n", cmd, name, line, format);
        rc = EXIT_RUNTIME;
    } else if (got == 1 && strcmp(has, format) != 0) {
        fprintf(stderr, "gpumon %s: %s holds %s records; appending %s would mix two formats in one log (its "
                "readers take one): choose another file, or --format %s\n", cmd, name,
                !strcmp(has, "jsonl") ? "JSON Lines" : !strcmp(has, "csv") ? "CSV" : "text", format, has);
        rc = EXIT_RUNTIME;
    } else if (got == 1 && header && strcmp(line, header)) {
        fprintf(stderr, "gpumon %s: %s holds CSV with other columns (its header: %.300s%s; this one's: %.300s%s): "
                "appending would put rows under the wrong header; give the same --fields, or another file\n", cmd,
                name, line, len > 300 ? "..." : "", header, strlen(header) > 300 ? "..." : "");
        rc = EXIT_RUNTIME;
    }
    if (opened)
        logsrc_close(src);
    return rc;
}

/* path with its folder made canonical (the file itself need not exist), into out. */
static bool cmd_canonical(const char *path, char *out, size_t len)
{
    char copy[PATH_MAX], dir[PATH_MAX];
    if (strlen(path) >= sizeof copy)
        return false;
    snprintf(copy, sizeof copy, "%s", path);
    char *slash = strrchr(copy, '/');
    const char *base = slash ? slash + 1 : copy;
    if (slash)
        *slash = '\0';
    if (!realpath(slash ? (copy[0] ? copy : "/") : ".", dir))
        return false;
    return (size_t)snprintf(out, len, "%s/%s", dir, base) < len;
}

bool cmd_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ra = !strcmp(a, "-") ? fstat(STDIN_FILENO, &sa) : stat(a, &sa);
    int rb = !strcmp(b, "-") ? fstat(STDIN_FILENO, &sb) : stat(b, &sb);
    if (ra == 0 && rb == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode) && !S_ISBLK(sa.st_mode);
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];   /* not there yet: the same name once made canonical */
    return strcmp(a, "-") && strcmp(b, "-") && cmd_canonical(a, ca, sizeof ca) && cmd_canonical(b, cb, sizeof cb) &&
           !strcmp(ca, cb);
}

int cmd_parse_output(const char *cmd, const char *name, const char *v, const char **out)
{
    if (!*v)
        return opt_usage_error(cmd, "%s: give a file name (an empty one names no file)", name);
    *out = v;
    return 0;
}

int cmd_finish_stdout(const char *cmd, int rc)
{
    bool failed = ferror(stdout) != 0;
    errno = 0;
    if (fclose(stdout) != 0)
        failed = true;
    int e = errno;
    if (failed && e != EPIPE) {
        fprintf(stderr, "gpumon%s%s: the output could not be written%s%s\n", *cmd ? " " : "", cmd, e ? ": " : "",
                e ? strerror(e) : "");
        return rc == EXIT_OK ? EXIT_RUNTIME : rc;
    }
    return rc;
}
