#!/usr/bin/python3
"""log_volume.py: bytes per day of a JSON Lines log, plain against zstd
(`-o run.jsonl.zst`: gpumon's own writer, one frame flushed per record), and
what reading each costs `gpumon diagnose`, in the same run.

Two `gpumon watch --format jsonl` runs record the 8-GPU straggler scenario
side by side, one to a plain file and one to a .zst file, played 20x fast
(GPUMON_SIM_SPEED=20, --interval 1s of scenario time: one record every
50 ms of wall time, stamped one simulated second apart, as a 1 Hz log). Bytes per record times 86,400 gives bytes per day at
1 Hz. Then `gpumon diagnose` reads each log REPEAT times and the CPU per
record is compared. Usage: bench/log_volume.py [BUILD_DIR] [RECORDS]
(defaults: build 600)
"""
import os, subprocess, sys, tempfile

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
records = int(sys.argv[2]) if len(sys.argv) > 2 else 600
here = os.path.dirname(os.path.abspath(__file__))
gpumon = os.path.join(build, "gpumon")
sim = os.path.join(build, "sim", "libnvidia-ml.so.1")
scenario = os.path.join(here, "..", "examples", "scenarios", "straggler.scn")
env = dict(os.environ, GPUMON_SIM_SCENARIO=scenario, GPUMON_SIM_SPEED="20")
REPEAT = 10


def record(path):
    return subprocess.Popen([gpumon, "watch", "--nvml", sim, "--interval", "1s", "--count", str(records),
                             "--format", "jsonl", "--output", path], env=env, stderr=subprocess.DEVNULL)


def diagnose_cpu(path):
    """CPU seconds of REPEAT diagnose runs over path."""
    total = 0.0
    for _ in range(REPEAT):
        p = subprocess.Popen([gpumon, "diagnose", path, "--format", "json"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        if status != 0:
            sys.exit("diagnose failed on " + path)
        total += ru.ru_utime + ru.ru_stime
    return total


def main():
    tmp = tempfile.mkdtemp(prefix="gpumon-logvol-")
    plain, packed = os.path.join(tmp, "run.jsonl"), os.path.join(tmp, "run.jsonl.zst")
    a, b = record(plain), record(packed)
    if a.wait() or b.wait():
        sys.exit("gpumon watch failed")
    n_plain = sum(1 for _ in open(plain))
    n_packed = int(subprocess.run(["sh", "-c", "zstd -dcq '%s' | wc -l" % packed], capture_output=True,
                                  text=True, check=True).stdout)
    sp, sz = os.path.getsize(plain), os.path.getsize(packed)
    per_p, per_z = sp / n_plain, sz / n_packed
    cpu_p, cpu_z = diagnose_cpu(plain), diagnose_cpu(packed)
    us_p, us_z = cpu_p / (REPEAT * n_plain) * 1e6, cpu_z / (REPEAT * n_packed) * 1e6
    print("8 GPUs (straggler.scn), %d records each, every metric and process lists" % records)
    print("| | plain JSON Lines | zstd (-o FILE.zst) | ratio |")
    print("| --- | --- | --- | --- |")
    print("| bytes per record | %d | %d | %.1fx smaller |" % (per_p, per_z, per_p / per_z))
    print("| per day at 1 Hz | %.0f MB | %.0f MB | |" % (per_p * 86400 / 1e6, per_z * 86400 / 1e6))
    print("| per week at 1 Hz | %.2f GB | %.2f GB | |" % (per_p * 86400 * 7 / 1e9, per_z * 86400 * 7 / 1e9))
    print("| diagnose CPU per record | %.0f us | %.0f us | %.2fx |" % (us_p, us_z, us_z / us_p))
    for f in (plain, packed):
        os.unlink(f)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
