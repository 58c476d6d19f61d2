"""Writes step rings by hand (docs/steps-channel.md), independently of python/gpumon, for test_steps.sh.

ring_writer.py DIR MODE
  bad-entries  a valid ring with invalid entries among good ones (unknown type, time going back,
               a zero count, a time far in the future), then good steps
  overflow     a 64-slot ring filled faster than gpumon reads it: entries are dropped and counted
  bad-files    files named like rings that are not (wrong magic, short, wrong size, wrong pid,
               a FIFO, a directory, a symbolic link, a name with a leading zero), and a hard link
               and a long-named link of a good ring (read once)
  truncate     5 steps, then, once gpumon has read them, the ring truncated to nothing
  sequence     34 processes one after another, 10 steps each (more than gpumon's 32 at once)
  wait-out     30 steps of 10 ms waiting and 10 ms computing, then a 0.6 s wait that ends in `o`
               (leaving the loop): not input wait; with RING_OWN=FILE, the share of its loop time
               it spent waiting, as it measured it, goes to FILE (a sleep takes what the machine gives);
               with RING_STEP=FILE, its mean step time in seconds, as it measured it
Steps take 20 ms (10 ms waiting, 10 ms computing); the process stays alive SECONDS_ALIVE (env, default 1).
"""
import os
import struct
import sys
import time

CHECK = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1


class Ring:
    def __init__(self, d, nslots=1024, pid=None, magic=b"GPUMSTP1", size=None):
        self.pid = os.getpid()
        name = "%d-%08x.ring" % (self.pid, int.from_bytes(os.urandom(4), "little"))
        self.path = os.path.join(d, name)
        self.n = nslots
        tmp = os.path.join(d, "." + name + ".tmp")
        fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        os.ftruncate(fd, size if size is not None else 64 + 24 * nslots)
        hdr = magic + struct.pack("<IIIIiiii", 1, 64, 24, nslots, pid or self.pid, 0, 0, 1)
        os.pwrite(fd, hdr, 0)
        self.fd = fd
        self.seq = 0
        os.rename(tmp, os.path.join(d, name))

    def consumed(self):
        return struct.unpack("<Q", os.pread(self.fd, 8, 48))[0]

    def put(self, kind, t=None, count=1):
        t = time.monotonic_ns() if t is None else t
        if self.seq + 1 - self.consumed() > self.n:
            dropped = struct.unpack("<Q", os.pread(self.fd, 8, 40))[0]
            os.pwrite(self.fd, struct.pack("<Q", dropped + 1), 40)
            return False
        self.seq += 1
        tn = (ord(kind) | (count << 8)) & MASK
        os.pwrite(self.fd, struct.pack("<QQQ", t, tn, (self.seq ^ t ^ tn ^ CHECK) & MASK),
                  64 + 24 * ((self.seq - 1) % self.n))
        return True


def steps(r, n):
    for _ in range(n):
        r.put("w")
        time.sleep(0.01)
        r.put("c")
        time.sleep(0.01)
    r.put("o")


def main():
    d, mode = sys.argv[1], sys.argv[2]
    stay = float(os.environ.get("SECONDS_ALIVE", "1"))
    if mode == "bad-entries":
        r = Ring(d)
        r.put("w")
        r.put("x")                                   # unknown type
        r.put("c", t=time.monotonic_ns() - 10**9)    # time going back
        r.put("c", count=0)                          # a step of no batches
        r.put("c", t=time.monotonic_ns() + 60 * 10**9)   # a minute ahead
        steps(r, 50)
    elif mode == "huge-batches":
        r = Ring(d)
        for _ in range(4):                           # each the most the 32-bit count holds, in one breath
            r.put("w")
            r.put("c", count=0xFFFFFFFF)
        r.put("o")
    elif mode == "overflow":
        r = Ring(d, nslots=64)
        t = time.monotonic_ns()
        for i in range(1000):
            r.put("w" if i % 2 == 0 else "c", t=t + i * 1000)
        r.put("o", t=t + 1000 * 1000)
    elif mode == "bad-files":
        pid = os.getpid()
        def name(k):
            return os.path.join(d, "%d-%08x.ring" % (pid, k))
        Ring(d, magic=b"NOTARING")
        with open(name(1), "wb") as f:
            f.write(b"GPUMSTP1")                     # shorter than a header
        Ring(d, size=64 + 24 * 1024 + 5)             # size does not match the slot count
        Ring(d, pid=pid + 1)                         # names another process
        os.mkfifo(name(2))
        os.mkdir(name(3))
        os.symlink("/etc/passwd", name(4))
        r = Ring(d)                                  # and one good ring beside them
        os.link(r.path, name(5))                     # a hard link: the same ring, read once
        os.link(r.path, os.path.join(d, "0%d-%08x.ring" % (pid, 6)))   # a leading zero: not a ring name
        steps(r, 30)
    elif mode == "truncate":
        r = Ring(d)
        steps(r, 5)
        end = time.monotonic() + 120
        while r.consumed() < r.seq and time.monotonic() < end:   # gpumon has read the steps
            time.sleep(0.01)
        os.ftruncate(r.fd, 0)
    elif mode == "sequence":
        if len(sys.argv) > 3:
            r = Ring(d)
            for _ in range(10):
                r.put("w")
                time.sleep(0.002)
                r.put("c")
                time.sleep(0.002)
            r.put("o")
            return
        import subprocess
        for _ in range(34):
            subprocess.run([sys.executable, __file__, d, "sequence", "child"], check=True)
        stay = 1
    elif mode == "wait-out":
        r = Ring(d)
        marks = []   # (kind, time) of every entry, for its own figure
        for _ in range(30):
            for kind in "wc":
                marks.append((kind, time.monotonic_ns()))
                r.put(kind, t=marks[-1][1])
                time.sleep(0.01)
        marks.append(("w", time.monotonic_ns()))   # the last compute ends here; this wait ends in "o"
        r.put("w", t=marks[-1][1])                   # (leaving the loop): not input wait
        time.sleep(0.6)
        r.put("o")
        if os.environ.get("RING_STEP"):   # the 30 steps: from the first wait's start to the last's
            with open(os.environ["RING_STEP"], "w") as f:
                f.write("%.6f\n" % ((marks[-1][1] - marks[0][1]) / 30 / 1e9))
        if os.environ.get("RING_OWN"):
            spans = [(a[0], b[1] - a[1]) for a, b in zip(marks, marks[1:])]
            waited = sum(t for k, t in spans if k == "w")
            computed = sum(t for k, t in spans if k == "c")
            with open(os.environ["RING_OWN"], "w") as f:
                f.write("%.4f\n" % (waited / (waited + computed)))
    time.sleep(stay)


if __name__ == "__main__":
    main()
