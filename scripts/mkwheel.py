#!/usr/bin/env python3
"""mkwheel.py STAGE PYTHON_SRC OUT_DIR: the wheel of gpumon from an install tree (`cmake --install
--prefix STAGE`), as scripts/wheel runs it inside the Debian 11 root: binary, modules, simulated NVML,
scenarios, man page, the Python package, and the shared libraries a bare container lacks.

What auditwheel does, for a wheel whose main content is an executable rather than an extension:
- every ELF file's needed libraries (ldd), and the two that gpumon loads with dlopen when a command
  needs them (libzstd.so.1, libcjson.so.1: src/lazylib.c), with their own, are bundled in
  lib/gpumon/libs/ under their sonames, except those the manylinux policy says every system has
  (libc, libm, libpthread, libdl, librt, libgcc_s, ...) and NVIDIA's libnvidia-ml.so.1, which is the
  driver's and is never bundled;
- each ELF gets a relative RUNPATH (patchelf) to that directory: the binary $ORIGIN/../lib/gpumon/libs,
  the modules $ORIGIN/libs, the bundled libraries $ORIGIN (a RUNPATH is not inherited: each library
  finds its own dependencies). dlopen from gpumon searches gpumon's RUNPATH, so the bundled libzstd
  and cJSON are the ones loaded. Sonames are kept (auditwheel renames them to keep two copies apart
  in one Python process; gpumon is a process of its own, and dlopen asks for the soname);
- the tag is checked: the highest GLIBC_ symbol version any ELF file needs must not pass the tag's
  glibc (manylinux_2_31: Debian 11, Ubuntu 20.04); it is printed, per file and overall.

The wheel installs the binary as a script (`gpumon` in the venv's bin/, on PATH) and the rest under the
prefix's data directory (lib/gpumon/, share/gpumon/scenarios/, share/man/man1/), where gpumon finds
its parts relative to itself (bin/../lib/gpumon, bin/../share/gpumon), as under /usr/local.
Standard library only; prints a summary with the wheel's size.
"""
import base64
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from typing import Dict, List, Optional, Set, Tuple

TAG_GLIBC = (2, 31)
PLATFORM = "manylinux_%d_%d_x86_64" % TAG_GLIBC
# what manylinux policies (PEP 600, auditwheel's policy.json) let a wheel take from the system
SYSTEM = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libgcc_s.so.1",
          "libstdc++.so.6", "libnsl.so.1", "libutil.so.1", "libresolv.so.2", "ld-linux-x86-64.so.2",
          "linux-vdso.so.1"}
NEVER = {"libnvidia-ml.so.1"}          # the driver's own library: a wheel must use the machine's
DLOPENED = ["libzstd.so.1", "libcjson.so.1"]
LIB_DIRS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"]


def die(msg: str) -> None:
    sys.stderr.write("mkwheel: %s\n" % msg)
    sys.exit(1)


def is_elf(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def run(*cmd: str) -> str:
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        die("%s: %s" % (" ".join(cmd), p.stdout.strip()))
    return p.stdout


def needed(path: str) -> Dict[str, Optional[str]]:
    """soname -> resolved path (None: not found) of every library path needs, transitively (ldd)."""
    out = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True).stdout
    libs = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(not found|(\S+))", line)
        if m:
            libs[m.group(1)] = m.group(3)
        else:
            m = re.match(r"\s*(/\S+)\s+\(0x", line)
            if m:
                libs[os.path.basename(m.group(1))] = m.group(1)
    return libs


def find_lib(soname: str) -> str:
    for d in LIB_DIRS:
        p = os.path.join(d, soname)
        if os.path.exists(p):
            return p
    die("%s, which gpumon loads at run time, is not installed here (scripts/deps.sh build installs it)" % soname)
    return ""


def glibc_needed(path: str) -> Tuple[int, ...]:
    """The highest GLIBC_x.y[.z] version path's version references name (objdump -p)."""
    out = run("objdump", "-p", path)
    refs = out.split("Version References:", 1)[1] if "Version References:" in out else ""
    best = (0,)
    for m in re.finditer(r"GLIBC_([0-9]+(?:\.[0-9]+)+)", refs):
        best = max(best, tuple(int(x) for x in m.group(1).split(".")))
    return best


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main() -> int:
    if len(sys.argv) != 4:
        die("usage: mkwheel.py STAGE PYTHON_SRC OUT_DIR")
    stage, pysrc, outdir = (os.path.abspath(a) for a in sys.argv[1:])
    scope = {}   # type: Dict[str, str]
    with open(os.path.join(pysrc, "gpumon", "_version.py")) as f:
        exec(f.read(), scope)
    version = scope["__version__"]
    binary = os.path.join(stage, "bin", "gpumon")
    libdir = os.path.join(stage, "lib", "gpumon")
    bundle = os.path.join(libdir, "libs")
    if not os.path.isfile(binary):
        die("no %s: run cmake --install first" % binary)
    shutil.rmtree(bundle, ignore_errors=True)
    os.makedirs(bundle)

    # gpumon's own ELF files, stripped of debug information (the dynamic symbols the modules need stay)
    ours = [binary]
    for root, _, files in os.walk(libdir):
        ours += [os.path.join(root, f) for f in sorted(files) if is_elf(os.path.join(root, f))]
    for p in ours:
        run("strip", "--strip-unneeded" if p != binary else "--strip-all", p)

    # what to bundle: the needed libraries of ours and of the dlopened ones, minus the system's
    wanted = {}   # type: Dict[str, str]
    todo = list(ours) + [find_lib(s) for s in DLOPENED]
    for s in DLOPENED:
        wanted[s] = find_lib(s)
    for p in todo:
        for soname, where in needed(p).items():
            if soname in SYSTEM or soname in NEVER:
                continue
            if where is None:
                die("%s needs %s, which is not found" % (p, soname))
            wanted[soname] = where
    for soname, where in sorted(wanted.items()):
        dest = os.path.join(bundle, soname)
        shutil.copyfile(os.path.realpath(where), dest)
        os.chmod(dest, 0o755)
        run("patchelf", "--set-rpath", "$ORIGIN", dest)
    for p in ours:
        rel = os.path.relpath(bundle, os.path.dirname(p))
        run("patchelf", "--set-rpath", "$ORIGIN/" + rel, p)

    # every ELF resolves its libraries from the bundle or the system's allowed set; glibc within the tag
    elves = ours + [os.path.join(bundle, s) for s in sorted(wanted)]
    worst = (0,)
    report = []
    for p in elves:
        for soname, where in needed(p).items():
            if soname in NEVER:
                die("%s links %s: it must be loaded at run time, from the driver" % (p, soname))
            if where is None:
                die("%s: %s not found after bundling" % (p, soname))
            if soname not in SYSTEM and not where.startswith(bundle + "/"):
                die("%s: %s resolves to %s, not to the bundled copy" % (p, soname, where))
        g = glibc_needed(p)
        worst = max(worst, g)
        report.append((os.path.relpath(p, stage), g))
    if worst > TAG_GLIBC:
        bad = ", ".join("%s (GLIBC_%s)" % (f, ".".join(map(str, g))) for f, g in report if g > TAG_GLIBC)
        die("the tag %s would be false: %s" % (PLATFORM, bad))

    # the wheel
    name = "gpumon-%s-py3-none-%s.whl" % (version, PLATFORM)
    data = "gpumon-%s.data" % version
    info = "gpumon-%s.dist-info" % version
    entries = []   # type: List[Tuple[str, str, int]]   (archive name, file, mode)
    entries.append((data + "/scripts/gpumon", binary, 0o755))
    for root, dirs, files in os.walk(stage):
        dirs.sort()
        rel = os.path.relpath(root, stage)
        if rel == "bin" or rel.startswith("lib/python") or rel.startswith("lib" + os.sep + "python"):
            continue
        for f in sorted(files):
            p = os.path.join(root, f)
            mode = 0o755 if os.access(p, os.X_OK) or is_elf(p) else 0o644
            entries.append(("%s/data/%s" % (data, os.path.relpath(p, stage)), p, mode))
    for root, dirs, files in os.walk(os.path.join(pysrc, "gpumon")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if not f.endswith(".pyc"):
                p = os.path.join(root, f)
                entries.append((os.path.relpath(p, pysrc), p, 0o644))
    with open(os.path.join(pysrc, "README.md")) as f:
        readme = f.read()
    metadata = ("Metadata-Version: 2.1\nName: gpumon\nVersion: %s\n"
                "Summary: Is the GPU computing or waiting, and why: the gpumon binary (sampling NVML, "
                "logs, Prometheus exporter, live view, gpumon run's diagnosis) and its Python step API\n"
                "Requires-Python: >=3.8\nClassifier: Programming Language :: Python :: 3\n"
                "Classifier: Operating System :: POSIX :: Linux\nClassifier: Typing :: Typed\n"
                "Provides-Extra: torch\nProvides-Extra: keras\nProvides-Extra: notebook\n"
                "Description-Content-Type: text/markdown\n\n%s" % (version, readme))
    wheel_meta = ("Wheel-Version: 1.0\nGenerator: gpumon scripts/wheel\nRoot-Is-Purelib: false\n"
                  "Tag: py3-none-%s\n" % PLATFORM)
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, name)
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))   # 1980: zip's earliest
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    records = []
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        def put(arcname: str, content: bytes, mode: int) -> None:
            zi = zipfile.ZipInfo(arcname, date_time=stamp)
            zi.external_attr = (stat.S_IFREG | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, content)
            records.append("%s,%s,%d" % (arcname, record_hash(content), len(content)))
        for arcname, p, mode in entries:
            with open(p, "rb") as f:
                put(arcname, f.read(), mode)
        put(info + "/METADATA", metadata.encode(), 0o644)
        put(info + "/WHEEL", wheel_meta.encode(), 0o644)
        put(info + "/top_level.txt", b"gpumon\n", 0o644)
        records.append(info + "/RECORD,,")
        zi = zipfile.ZipInfo(info + "/RECORD", date_time=stamp)
        zi.external_attr = (stat.S_IFREG | 0o644) << 16
        z.writestr(zi, "\n".join(records) + "\n", zipfile.ZIP_DEFLATED)
    os.replace(tmp, path)

    print("mkwheel: bundled %d libraries: %s" % (len(wanted), " ".join(sorted(wanted))))
    print("mkwheel: highest glibc symbol version needed, per ELF file (tag %s):" % PLATFORM)
    for f, g in report:
        print("  GLIBC_%-8s %s" % (".".join(map(str, g)), f))
    print("mkwheel: highest of all: GLIBC_%s (<= %d.%d: the tag is true)" % (".".join(map(str, worst)), *TAG_GLIBC))
    size = os.path.getsize(path)
    unpacked = sum(os.path.getsize(p) for _, p, _ in entries)
    print("mkwheel: %s: %d files, %.1f MB (%.1f MB installed)" % (path, len(entries) + 4, size / 1e6, unpacked / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
