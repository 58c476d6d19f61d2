/*
 * sig.h: the one signal setup (tmux's proc_set_signals is the model).
 *
 * main() calls sig_setup() with the command's signals before the command
 * does anything else: they are blocked before NVML is opened or any thread
 * exists, so every thread inherits the mask and a signal that arrives
 * during start-up waits, pending, until the command asks for it with
 * sig_wait(). No handler ever runs: signals are taken synchronously, at
 * the points where the command waits anyway (between samples, in serve's
 * main thread, in run's forwarder). gpumon acts on its signals even when
 * they were ignored when it started (a background job of a script starts
 * with SIGINT ignored); sig_ignored_at_start() tells run which ones its
 * command will ignore too (nohup), so it does not forward them.
 * SIGPIPE and SIGXFSZ are ignored (a closed pipe or a file size limit is a
 * failed write, reported, not death). A forked child calls
 * sig_restore_child() before exec to get the dispositions and mask gpumon
 * itself was started with.
 */
#ifndef GPUMON_SIG_H
#define GPUMON_SIG_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define SIG_FOREVER UINT64_MAX

/* Blocks sigs (0-terminated; NULL or empty: nothing to block) with their
 * default dispositions (so they stay pending until sig_wait takes them;
 * SIGCHLD: not for stopped children). Ignores SIGPIPE and SIGXFSZ when
 * sigs is not NULL. Call once, first thing. */
void sig_setup(const int *sigs);
/* True when sig was ignored when gpumon started. */
bool sig_ignored_at_start(int sig);
/* Waits for one of sigs (0-terminated, a subset of sig_setup's) until the
 * monotonic deadline in ns (util_mono_ns(); 0: only what is pending;
 * SIG_FOREVER: no deadline). Returns the signal, 0 at the deadline. info,
 * if not NULL, receives who sent it. */
int sig_wait(const int *sigs, uint64_t deadline_ns, siginfo_t *info);
/* True when one of sigs (a 0-terminated const int list, passed as a void
 * pointer so that this serves as out.h's stop function) is pending; it
 * stays pending, for sig_wait to take. */
bool sig_pending(const void *sigs);
/* In a forked child before exec: the dispositions and the signal mask
 * gpumon was started with. Async-signal-safe. */
void sig_restore_child(void);

#endif
