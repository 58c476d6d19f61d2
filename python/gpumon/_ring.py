"""The step ring writer: the format of docs/steps-channel.md, standard library only.

One ring file per process, in the directory named by GPUMON_STEPS. The file
is created under a temporary name, filled (header and zeroed slots, so a full
disk shows here as an OSError rather than as SIGBUS later), mapped shared and
renamed to its final name, so gpumon never sees a half-written header.

Writing an entry is a few stores into the mapping: no system call, no lock.
The write function is a closure (its state lives in cells, read faster than
attributes) with everything it calls bound beforehand.
"""
import mmap
import os
import re
import stat
import struct
import time

MAGIC = b"GPUMSTP1"
VERSION = 1
HEADER_SIZE = 64
ENTRY_SIZE = 24
NSLOTS = 16384            # the Python writer's ring size (a power of two, 64..1048576)
CHECK_KEY = 0x9E3779B97F4A7C15
MASK64 = 0xFFFFFFFFFFFFFFFF
COUNT_MAX = 0xFFFFFFFF    # the count field is 32 bits (bits 8-39 of tn)

# magic, version, header size, entry size, nslots, pid, rank, local rank,
# world size, dropped, consumed, reserved: 8 + 4*4 + 4*4 + 8*3 = 64 bytes
HEADER = struct.Struct("<8sIIIIiiiiQQQ")
ENTRY = struct.Struct("<QQQ")
U64 = struct.Struct("<Q")
OFF_DROPPED = 40
OFF_CONSUMED = 48

TYPE_WAIT = ord("w")
TYPE_COMPUTE = ord("c")
TYPE_OTHER = ord("o")

_INT = re.compile(r"[+-]?[0-9]+\Z")   # a plain decimal integer: not "1_000", " 3", "3.0" or non-ASCII digits

assert HEADER.size == HEADER_SIZE and ENTRY.size == ENTRY_SIZE


def tn(kind, count=1):
    """The entry's second word: type in the low 8 bits, count in bits 8-39."""
    return kind | (count << 8)


def env_int(name, environ=None):
    """An i32 header field from the environment: -1 when unset, not an
    integer, or out of the i32 range."""
    value = (os.environ if environ is None else environ).get(name)
    if value is None or not _INT.match(value):
        return -1
    n = int(value)
    return n if -0x80000000 <= n <= 0x7FFFFFFF else -1


def check_dir(path):
    """None when path is a directory this process may record into (owned by
    the effective user, not writable by group or others), else the reason."""
    try:
        st = os.stat(path)
    except OSError as e:
        return "GPUMON_STEPS=%s: %s" % (path, e.strerror or e)
    if not stat.S_ISDIR(st.st_mode):
        return "GPUMON_STEPS=%s is not a directory" % path
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return "GPUMON_STEPS=%s is owned by uid %d, not by this user (uid %d)" % (path, st.st_uid, os.geteuid())
    if st.st_mode & 0o022:
        return "GPUMON_STEPS=%s is writable by group or others (mode %04o)" % (path, stat.S_IMODE(st.st_mode))
    if not os.access(path, os.W_OK | os.X_OK):
        return "GPUMON_STEPS=%s: Permission denied (no write access)" % path
    return None


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class Ring(object):
    """One ring file of this process. Attributes: path, pid, nslots, and
    write(tn): append one entry stamped with time.monotonic_ns(), or drop it
    and count it when the ring is full."""

    def __init__(self, directory, nslots=None, environ=None):
        nslots = NSLOTS if nslots is None else nslots
        if nslots < 64 or nslots > 1048576 or nslots & (nslots - 1):
            raise ValueError("nslots must be a power of two from 64 to 1048576")
        pid = os.getpid()
        size = HEADER_SIZE + nslots * ENTRY_SIZE
        header = HEADER.pack(MAGIC, VERSION, HEADER_SIZE, ENTRY_SIZE, nslots, pid,
                             env_int("RANK", environ), env_int("LOCAL_RANK", environ),
                             env_int("WORLD_SIZE", environ), 0, 0, 0)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
        for attempt in range(3):
            name = "%d-%s.ring" % (pid, os.urandom(4).hex())
            final = os.path.join(directory, name)
            tmp = os.path.join(directory, "." + name + ".tmp")
            try:
                fd = os.open(tmp, flags, 0o600)
                break
            except FileExistsError:
                if attempt == 2:
                    raise
        try:
            try:
                _write_all(fd, header + bytes(size - HEADER_SIZE))
                mm = mmap.mmap(fd, size)   # MAP_SHARED, read and write
            finally:
                os.close(fd)
            try:
                os.rename(tmp, final)
            except BaseException:
                mm.close()
                raise
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        self.path = final
        self.pid = pid
        self.nslots = nslots
        self.mm = mm
        self.write, self.counters = _make_writer(mm, nslots)

    def last_type(self):
        """The type letter of the last entry written, or None."""
        written = self.counters()[0]
        if written == 0:
            return None
        slot = (written - 1) & (self.nslots - 1)
        return chr(U64.unpack_from(self.mm, HEADER_SIZE + ENTRY_SIZE * slot + 8)[0] & 0xFF)


def _make_writer(mm, nslots):
    """Returns (write(tn), counters() -> (written, dropped))."""
    pack_entry = ENTRY.pack_into
    pack_u64 = U64.pack_into
    unpack_u64 = U64.unpack_from
    now = time.monotonic_ns
    slot_mask = nslots - 1
    key = CHECK_KEY
    m64 = MASK64
    seq = 0
    consumed = 0
    dropped = 0

    def write(tn):
        nonlocal seq, consumed, dropped
        t = now()
        s = (seq + 1) & m64
        if (s - consumed) & m64 > nslots:          # full as far as the cached copy knows
            consumed = unpack_u64(mm, OFF_CONSUMED)[0]
            if (s - consumed) & m64 > nslots:
                dropped += 1
                pack_u64(mm, OFF_DROPPED, dropped)
                return
        pack_entry(mm, HEADER_SIZE + ENTRY_SIZE * ((s - 1) & slot_mask), t, tn, s ^ t ^ tn ^ key)
        seq = s

    def counters():
        return seq, dropped

    return write, counters
