# Layout: every file of src/ belongs to a module of docs/ARCHITECTURE.md,
# and includes only what its module may (the one-way direction: sinks, the
# analysis and the log reader never include NVML or the sampler). Also: no
# file over 800 lines, and each opens with its design comment.
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
for f in sorted(os.listdir(os.path.join(src, "src"))):
    if not f.endswith((".c", ".h")):
        continue
    stem = f.rsplit(".", 1)[0]
    mod = module_of(stem)
    text = open(os.path.join(src, "src", f)).read()
    if mod is None:
        bad.append(f"{f}: in no module of docs/ARCHITECTURE.md")
        continue
    if not text.startswith("/*"):
        bad.append(f"{f}: does not open with its design comment")
    if text.count("\n") > 800:
        bad.append(f"{f}: {text.count(chr(10))} lines (split it by concept)")
    for inc in re.findall(r'^#include "([a-z_0-9]+)\.h"', text, re.M):
        target = module_of(inc)
        if target is None:
            bad.append(f"{f}: includes {inc}.h, which is in no module")
        elif "*" not in allowed[mod] and target not in allowed[mod]:
            bad.append(f"{f} ({mod}) includes {inc}.h ({target}): not allowed")
for b in bad:
    print("layout:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
done_tests
