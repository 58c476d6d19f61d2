/*
 * loglock.h: one writer per log file. Every log file gpumon appends to
 * (watch -o, run -o, query -f) is locked for writing as soon as it is
 * opened, before anything is written or truncated, and a second gpumon
 * (or any other process holding a write lock on it) is refused with a
 * message naming the holder: its pid and command line when this machine
 * can see them. Two writers would interleave their records, and two zstd
 * streams in one file leave it unreadable.
 *
 * The lock is an open-file-description lock (fcntl F_OFD_SETLK, Linux
 * 3.15 and later; a classic POSIX record lock on older kernels): it
 * belongs to the descriptor, so closing another descriptor of the same
 * file in gpumon never drops it, and it is released by the kernel when the
 * writer exits, however it exits (kill -9 included). fcntl locks are the
 * ones NFS carries to the server (NLM for NFSv3, in the protocol for
 * NFSv4), so two nodes writing one log on a shared mount are refused too;
 * a mount without lock support (nolock, no lockd) is said once and the log
 * is written unlocked. Only regular files are locked: a FIFO, a device
 * (/dev/null) or standard output has no single file to protect.
 */
#ifndef GPUMON_LOGLOCK_H
#define GPUMON_LOGLOCK_H

#include <stddef.h>

/* Locks fd (open for writing) for this writer; name: the file, as messages
 * say it. Returns 0 when locked or when fd is not a regular file or its
 * file system has no locks (a warning is printed then), -1 with a message
 * naming the holder in err when another writer holds it. */
int loglock_take(int fd, const char *name, char *err, size_t errlen);

#endif
