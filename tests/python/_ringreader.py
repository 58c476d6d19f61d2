"""An independent reader of the step ring format (docs/steps-channel.md), written from the spec
with struct alone, so the writer is tested against the document and not against itself. The fake
gpumon of test_notebook.py imports it too."""
import os
import struct

MAGIC = b"GPUMSTP1"
KEY = 0x9E3779B97F4A7C15
M64 = (1 << 64) - 1

_HEADER = [  # offset, format, name
    (0, "8s", "magic"), (8, "<I", "version"), (12, "<I", "header_size"), (16, "<I", "entry_size"),
    (20, "<I", "nslots"), (24, "<i", "pid"), (28, "<i", "rank"), (32, "<i", "local_rank"),
    (36, "<i", "world_size"), (40, "<Q", "dropped"), (48, "<Q", "consumed"), (56, "<Q", "reserved"),
]


class RingError(AssertionError):
    pass


def header(data):
    h = {}
    for off, fmt, name in _HEADER:
        h[name] = struct.unpack_from(fmt, data, off)[0]
    if h["magic"] != MAGIC:
        raise RingError("bad magic %r" % h["magic"])
    if (h["version"], h["header_size"], h["entry_size"]) != (1, 64, 24):
        raise RingError("bad version/sizes %r" % ((h["version"], h["header_size"], h["entry_size"]),))
    n = h["nslots"]
    if n < 64 or n > 1048576 or n & (n - 1):
        raise RingError("bad nslots %d" % n)
    if len(data) != 64 + 24 * n:
        raise RingError("file size %d, expected %d" % (len(data), 64 + 24 * n))
    if h["reserved"] != 0:
        raise RingError("reserved is %d" % h["reserved"])
    return h


def entries(data, start=None):
    """The readable entries from seq `start` (default: consumed + 1) on, as gpumon takes them:
    entry seq in slot (seq - 1) % nslots, taken while its check word matches, never more than
    nslots past consumed. Returns (header, [(seq, type letter, count, t)]); checks time order."""
    h = header(data)
    n = h["nslots"]
    seq = (h["consumed"] + 1) & M64 if start is None else start
    out = []
    last_t = 0
    while (seq - h["consumed"]) & M64 <= n:
        slot = ((seq - 1) & M64) % n
        t, tn, check = struct.unpack_from("<QQQ", data, 64 + 24 * slot)
        if check != (seq ^ t ^ tn ^ KEY) & M64:
            break
        if t < last_t:
            raise RingError("entry %d out of time order" % seq)
        if tn >> 40:
            raise RingError("entry %d: bits above 39 set in %#x" % (seq, tn))
        last_t = t
        out.append((seq, chr(tn & 0xFF), (tn >> 8) & 0xFFFFFFFF, t))
        seq = (seq + 1) & M64
    return h, out


def read(path, start=None):
    with open(path, "rb") as f:
        return entries(f.read(), start)


def kinds(path, start=None):
    """'c1w1c1w1o1'-style summary: type letter and count of each entry."""
    return "".join("%s%d" % (k, c) for _, k, c, _ in read(path, start)[1])


def set_consumed(path, consumed):
    with open(path, "r+b") as f:
        f.seek(48)
        f.write(struct.pack("<Q", consumed))


def rings(directory):
    """The ring files gpumon would read in directory (final names only), sorted."""
    names = []
    for name in sorted(os.listdir(directory)):
        stem = name[:-5] if name.endswith(".ring") else None
        if not stem or stem.count("-") != 1:
            continue
        pid, rand = stem.split("-")
        if pid.isdigit() and len(rand) == 8 and all(ch in "0123456789abcdef" for ch in rand):
            names.append(os.path.join(directory, name))
    return names
