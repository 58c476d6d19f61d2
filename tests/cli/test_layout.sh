# Layout: every file of src/ (C, and the one C++ file) belongs to a module of docs/ARCHITECTURE.md,
# and includes only what its module may (the one-way direction: sinks, the
# analysis and the log reader never include NVML or the sampler). A module
# built apart (the exporter, the live view) is a folder of src/: its files
# are named folder/stem, and no file outside the folder includes its
# headers. Also: no file over 800 lines, and each opens with its design
# comment; header names are unique across src/ (an include names one file).
. "$(dirname "$0")/lib.sh"
"$PY" - "$SRC" <<'PYEOF' && ok || fail "layout rules broken (above)"
import fnmatch, os, re, sys
src = sys.argv[1]
doc = open(os.path.join(src, "docs/ARCHITECTURE.md")).read()
block = doc.split("<!-- layout:begin -->")[1].split("<!-- layout:end -->")[0]
modules, allowed = {}, {}
for line in block.strip().splitlines()[2:]:
    name, files, may = [c.strip() for c in line.strip("|").split("|")]
    modules[name] = files.split()
    allowed[name] = set(may.split()) | {name}
def module_of(stem):
    for name, pats in modules.items():
        if any(fnmatch.fnmatch(stem, p) for p in pats):
            return name
    return None
bad = []
files, header_at = [], {}
for root, dirs, names in os.walk(os.path.join(src, "src")):
    dirs.sort()
    for f in sorted(names):
        if f.endswith((".c", ".cpp", ".h")):
            rel = os.path.relpath(os.path.join(root, f), os.path.join(src, "src"))
            files.append(rel)
            if f.endswith(".h"):
                if f in header_at:
                    bad.append(f"{rel}: {f} is also {header_at[f]}")
                header_at[f] = rel
def folder(rel):
    return os.path.dirname(rel)
for rel in files:
    stem = rel.rsplit(".", 1)[0]
    mod = module_of(stem)
    text = open(os.path.join(src, "src", rel)).read()
    if mod is None:
        bad.append(f"{rel}: in no module of docs/ARCHITECTURE.md")
        continue
    if not text.startswith("/*"):
        bad.append(f"{rel}: does not open with its design comment")
    if text.count("\n") > 800:
        bad.append(f"{rel}: {text.count(chr(10))} lines (split it by concept)")
    for inc in re.findall(r'^#include "([a-z_0-9]+)\.h"', text, re.M):
        at = header_at.get(inc + ".h")
        target = module_of(at.rsplit(".", 1)[0]) if at else None
        if target is None:
            bad.append(f"{rel}: includes {inc}.h, which is in no module")
        elif folder(at) and folder(at) != folder(rel):
            bad.append(f"{rel} includes {at}: a folder's headers are its own")
        elif "*" not in allowed[mod] and target not in allowed[mod]:
            bad.append(f"{rel} ({mod}) includes {inc}.h ({target}): not allowed")
for b in bad:
    print("layout:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF

# The NVML facts the code cites ("docs/nvml-facts.md §N", in src/, sim/ and docs/) are sections of
# that file, and no citation points at a facts sheet outside the repository.
"$PY" - "$SRC" <<'PYEOF' && ok || fail "NVML facts citations broken (above)"
import os, re, sys
src = sys.argv[1]
facts = open(os.path.join(src, "docs/nvml-facts.md")).read()
sections = set(re.findall(r"^## (\d+)\.", facts, re.M))
bad = []
for top in ("src", "sim", "docs"):
    for root, dirs, names in os.walk(os.path.join(src, top)):
        for f in names:
            if not f.endswith((".c", ".h", ".md", ".txt")) or f == "nvml-facts.md":
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            text = open(path, errors="replace").read()
            for m in re.finditer(r"nvml-facts\.md\)?([^\n]*)", text):
                cited = re.findall(r"§(\d+)", m.group(1).split(")")[0])   # up to the citation's end
                bad += [f"{rel}: cites §{n}, not a section of docs/nvml-facts.md" for n in cited if n not in sections]
            if re.search(r"facts §|facts sheet|shared/nvml-facts", text):
                bad.append(f"{rel}: cites a facts sheet other than docs/nvml-facts.md")
for b in bad:
    print("facts:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
done_tests
