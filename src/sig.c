/*
 * sig.c: blocked signals taken synchronously (see sig.h). sig_setup()
 * records every disposition it changes and the mask it found, so that
 * sig_restore_child() can undo exactly that in a child. A signal the
 * command waits for gets the default disposition while blocked: POSIX
 * leaves it open whether a blocked but ignored signal stays pending.
 */
#include "sig.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "util.h"

#define SIG_SAVED_MAX 12

static sigset_t sig_start_mask;         /* the mask gpumon was started with */
static sigset_t sig_ignored;            /* ignored at start, among those changed */
static struct {
    int sig;
    struct sigaction old;
} sig_saved[SIG_SAVED_MAX];
static size_t sig_nsaved;

static void sig_set_disposition(int sig, void (*handler)(int))
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = sig == SIGCHLD ? SA_NOCLDSTOP : 0;   /* wake for an ended child, not a stopped one */
    sigemptyset(&sa.sa_mask);
    if (sig_nsaved == SIG_SAVED_MAX || sigaction(sig, &sa, &old) != 0)
        return;
    if (old.sa_handler == SIG_IGN)
        sigaddset(&sig_ignored, sig);
    sig_saved[sig_nsaved].sig = sig;
    sig_saved[sig_nsaved++].old = old;
}

void sig_setup(const int *sigs)
{
    sigset_t block;
    sigemptyset(&block);
    sigemptyset(&sig_ignored);
    pthread_sigmask(SIG_SETMASK, NULL, &sig_start_mask);
    for (const int *s = sigs; s && *s; s++) {
        sig_set_disposition(*s, SIG_DFL);
        sigaddset(&block, *s);
    }
    if (sigs) {
        sig_set_disposition(SIGPIPE, SIG_IGN);
        sig_set_disposition(SIGXFSZ, SIG_IGN);
    }
    pthread_sigmask(SIG_BLOCK, &block, NULL);
}

bool sig_ignored_at_start(int sig)
{
    return sigismember(&sig_ignored, sig) == 1;
}

UTIL_HOT int sig_wait(const int *sigs, uint64_t deadline_ns, siginfo_t *info)
{
    sigset_t set;
    siginfo_t local;
    sigemptyset(&set);
    for (const int *s = sigs; s && *s; s++)
        sigaddset(&set, *s);
    for (;;) {
        uint64_t now = util_mono_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
        if (deadline_ns == SIG_FOREVER)
            left = 3600ull * 1000000000ull;   /* wake hourly; nothing changes but the call */
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        int sig = sigtimedwait(&set, info ? info : &local, &ts);
        if (sig > 0)
            return sig;
        if (errno == EAGAIN && deadline_ns != SIG_FOREVER)
            return 0;   /* the deadline */
        if (errno != EAGAIN && errno != EINTR)
            return 0;   /* cannot happen with a valid set; do not spin */
    }
}

bool sig_pending(const void *sigs)
{
    sigset_t p;
    if (sigpending(&p) != 0)
        return false;
    for (const int *s = sigs; s && *s; s++)
        if (sigismember(&p, *s) == 1)
            return true;
    return false;
}

void sig_restore_child(void)
{
    for (size_t i = 0; i < sig_nsaved; i++)
        sigaction(sig_saved[i].sig, &sig_saved[i].old, NULL);
    sigprocmask(SIG_SETMASK, &sig_start_mask, NULL);
}
