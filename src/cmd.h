/*
 * cmd.h: what every command shares. Each command is a const struct
 * cmd_entry (opt.h) in its cmd_NAME.c: name, usage, help text, option
 * tables, signals and the function that runs it; main.c dispatches over
 * them. Shared here: the NVML options (--nvml, --sim, --scenario) with the
 * one function that opens NVML and turns a failure into one line and an
 * exit status, the analysis options of run, diagnose and report, and the
 * helpers for durations, usage errors and output that must not be lost.
 */
#ifndef GPUMON_CMD_H
#define GPUMON_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "opt.h"
#include "rules.h"

extern const struct cmd_entry cmd_watch_entry, cmd_query_entry, cmd_run_entry, cmd_diagnose_entry,
    cmd_report_entry, cmd_compare_entry;
/* serve lives in the exporter module (gpumon-serve.so, with libmicrohttpd
 * and GnuTLS); gpumon itself holds its launcher (cmd_serve_launch.c). */
extern const struct cmd_entry cmd_serve_entry, cmd_serve_launcher;
/* serve's signals, for both: stop on SIGINT and SIGTERM, ignore SIGHUP. */
#define CMD_SERVE_SIGNALS {SIGINT, SIGTERM, SIGHUP, 0}

/* The entry points (also called directly by the fuzz harnesses). */
int cmd_watch(int argc, char **argv);
/* as_smi: invoked as nvidia-smi (other nvidia-smi options get a clear
 * refusal, nvidia-smi's wording). */
int cmd_query(int argc, char **argv, bool as_smi);
/* As nvidia-smi: whether argv asks for the summary table (no argument) or the
 * GPU list (-L, --list-gpus), which cmd_smi answers (cmd_smi.c). */
bool cmd_smi_wants(int argc, char **argv);
int cmd_smi(int argc, char **argv);
/* As nvidia-smi (the table, -L and the query alike): opens NVML (path: NULL for the usual search) and
 * finds a GPU. Returns 0, or nvidia-smi's exit status after its message on standard output (no library
 * 12, no driver 9, no GPU 6, else cmd_query_smi_status's), gpumon's own reason on standard error. */
int cmd_smi_open(const char *path);
/* nvidia-smi's exit status for an NVML return code (cmd_query.c). */
int cmd_query_smi_status(int code);
int cmd_serve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_diagnose(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);

/* Reads the log at path into a new compare run (compare.h) for cmd (its messages' prefix): 0 with *out
 * set, or an exit status after saying why (unreadable, a malformed line, no records). */
struct compare_run;
int cmd_compare_load(const char *cmd, const char *path, struct compare_run **out);

/* Finds a part of gpumon installed beside it: DIR/in_build next to the
 * binary (a build tree), then installed, then DIR/../lib/gpumon/in_build.
 * Returns true with the path in out. */
bool cmd_find_part(const char *in_build, const char *installed, char *out, size_t len);
/* The log reader's fast path for the commands that read logs (diagnose, report, compare): the simdjson
 * module (logread_simd.h) loaded and used when it is there; GPUMON_LOG_READER=cjson leaves it out,
 * =simdjson requires it; GPUMON_LOG_THREADS=N sets logread_threads() (logread.h). Returns 0, or an exit
 * status after saying why (simdjson required and missing, an unknown value). */
int cmd_log_reader(const char *cmd);

/* ---- the NVML options ---- */
struct cmd_nvml_opts {
    const char *nvml_path;      /* --nvml */
    const char *scenario;       /* --scenario (implies --sim) */
    bool sim;                   /* --sim */
};
enum { CMD_OPT_NVML = 0x1000, CMD_OPT_SIM, CMD_OPT_SCENARIO };
extern const struct opt cmd_nvml_opts[];
/* Handles a key of cmd_nvml_opts; returns 0, or EXIT_USAGE for a key that is not one. */
int cmd_nvml_option(struct cmd_nvml_opts *o, int key, const char *arg);
/* Opens NVML as the options say. Returns 0, or an exit status after
 * printing one line that names the cause and what to do (a scenario file
 * that cannot be used is a usage error naming it). require_gpu: fail with
 * EXIT_NO_GPU when NVML reports zero GPUs. */
int cmd_open_nvml(const struct cmd_nvml_opts *o, bool require_gpu);
/* Why the latest cmd_open_nvml() failed, in a few words for a summary ("the NVIDIA driver is not
 * loaded"); "" when it did not fail. The full message, with what to do, went to stderr then. */
const char *cmd_nvml_failure(void);

/* ---- the analysis options of run, diagnose and report (cmd_analysis.c) ---- */
struct cmd_analysis_opts {
    struct rule_config cfg;     /* window and thresholds */
    bool list_rules;
    double gpu_hour_cost;       /* --gpu-hour-cost, else GPUMON_GPU_HOUR_COST (cmd_analysis_ready); 0 none */
    bool cost_given;
};
enum { CMD_OPT_WINDOW = 0x1100, CMD_OPT_THRESHOLD, CMD_OPT_LIST_RULES, CMD_OPT_COST };
extern const struct opt cmd_analysis_opts[];
/* --gpu-hour-cost: the ledger's money (run, diagnose and report: those that show the ledger). */
extern const struct opt cmd_cost_opts[];
void cmd_analysis_init(struct cmd_analysis_opts *o);
/* After the options: the price from GPUMON_GPU_HOUR_COST unless --gpu-hour-cost gave one. Returns 0, or
 * EXIT_USAGE after saying what is wrong with the variable. */
int cmd_analysis_ready(const char *cmd, struct cmd_analysis_opts *o);
/* Handles a key of cmd_analysis_opts: 0, OPT_DONE (--list-rules printed),
 * or EXIT_USAGE after printing the problem. */
int cmd_analysis_option(const char *cmd, struct cmd_analysis_opts *o, int key, const char *arg);

/* ---- sampling loops ---- */
struct sampler;
struct record;
/* Takes one sample for a loop running every step ns; a sample that took
 * over a second and over an interval (an NVML call slow or hung) is said
 * on stderr, since the records will show a gap there. */
void cmd_sample(struct sampler *s, struct record *rec, uint64_t step);
/* Takes a --gpus list of cmd; one that names no GPU (empty, only commas)
 * is a usage error. Returns 0 or EXIT_USAGE. */
/* --hpc-job-mapping-dir DIR: a directory (checked now; its files are read as records are taken). */
/* Loads module file (next to gpumon, else installed) and checks that version_sym is this gpumon's
 * version; its handle, or NULL after saying why on stderr (as "gpumon CMD: ..."). */
void *cmd_load_module(const char *cmd, const char *what, const char *file, const char *installed,
                      const char *version_sym);
/* Runs command cmd from its module (what: "the exporter module"): file found next to gpumon or at
 * installed, loaded, its version_sym checked against this gpumon's, entry_sym called with argc, argv.
 * The module stays loaded (its threads may outlive a hung NVML call). Returns the command's status,
 * or EXIT_RUNTIME with a message. */
int cmd_run_module(const char *cmd, const char *what, const char *file, const char *installed,
                   const char *version_sym, const char *entry_sym, int argc, char **argv);
int cmd_parse_job_dir(const char *cmd, const char *v, const char **out);
int cmd_parse_gpus(const char *cmd, const char *arg, const char **out);
#define CMD_INTERVAL_MIN_MS 10.0
#define CMD_INTERVAL_MAX_MS (24.0 * 3600 * 1000)
/* Parses an --interval value of cmd: 10 ms to 24 h. Returns 0, or
 * EXIT_USAGE after a usage error naming the problem. */
int cmd_parse_interval(const char *cmd, const char *arg, double *ms);
/* Parses a duration option of cmd (name: "--web.timeout") between min and
 * max ms. Returns 0, or EXIT_USAGE after a usage error. */
int cmd_parse_duration(const char *cmd, const char *name, const char *arg, double min_ms, double max_ms,
                       double *ms);

/* ---- outputs ---- */
/* Checks that records of format name ("text", "csv", "jsonl"; header: the
 * CSV header line without its newline, else NULL) may be appended to the
 * log at path: a regular file that is empty, or that already holds that
 * format (CSV: the same header, so no row lands under the wrong columns).
 * Returns 0, or EXIT_RUNTIME after a message saying what the file holds. */
int cmd_check_append(const char *cmd, const char *path, const char *format, const char *header);
/* Whether the files at a and b ("-": standard input) are the same file
 * (a link or another name of it), so that writing one destroys the other;
 * devices are never "the same" (/dev/null). */
bool cmd_same_file(const char *a, const char *b);
/* An output option's value: an empty one is a usage error. Returns 0 or
 * EXIT_USAGE. */
int cmd_parse_output(const char *cmd, const char *name, const char *v, const char **out);

/* Closes standard output at the end of a command and checks it (gnulib's
 * close_stdout): returns rc, or EXIT_RUNTIME after one message when
 * something written could not be (a full disk; a closed pipe is not
 * reported: nobody reads it). main() calls it after every command. */
int cmd_finish_stdout(const char *cmd, int rc);

#endif
