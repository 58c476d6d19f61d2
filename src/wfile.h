/*
 * wfile.h: writing a whole file that others read (the HTML report, the
 * exporter's textfile). Over a regular file, or where nothing is, the file
 * is replaced atomically: written to a unique temporary name in the same
 * folder, then renamed over it, so a reader never sees half of it and two
 * writers never collide; the replaced file's mode is kept. A symbolic link
 * to a regular file is followed, so the link stays and its target is
 * replaced. Anything else is never replaced: a device (/dev/null,
 * /dev/full, /dev/stdout) or a FIFO with a reader is written through, a
 * FIFO without one, a directory or a socket is refused with a message.
 */
#ifndef GPUMON_WFILE_H
#define GPUMON_WFILE_H

#include <stddef.h>

/* Writes len bytes of data as the content of path. Returns 0, or -1 with
 * a message naming the path and the reason in err (nothing was replaced). */
int wfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen);

/* Checks now that wfile_write(path) could write there later (an output
 * named for the end of a long job): the name is not empty, what is at
 * path is not a directory or a socket, and a file can be created in the
 * folder that would receive it (one is made and removed). Returns 0, or -1
 * with wfile_write's message for the problem. */
int wfile_check(const char *path, char *err, size_t errlen);

#endif
