#!/usr/bin/env bash
# deps.sh [build|test]: installs the packages gpumon needs, only those
# missing, with apt on Debian 11/12 and Ubuntu 20.04/22.04/24.04.
#   build  what building and running gpumon needs (scripts/demo), and where the release has them,
#          simdjson 3.0+ and g++ (the fast log reader: optional, never fatal)
#   test   that plus the test suite's tools (scripts/test, CI; the default),
#          and on Debian the third-party NVML clients that the simulator
#          tests run (nvtop, python3-pynvml), from Debian's contrib
#          component, which it enables for those two packages alone
# Without root it uses sudo. A package that is not available where one has
# a fallback (Ubuntu's names) is replaced by the fallback; one this release
# lacks altogether is named and left out (fatal only for a build package).
# The package lists are refreshed first, and again when a download fails
# (lists older than the archive: a container's, a cached root's), and apt
# waits for another apt holding its lock instead of failing.
set -euo pipefail
what=${1:-test}
case $what in build|test) ;; *) echo "usage: scripts/deps.sh [build|test]" >&2; exit 2;; esac

build=(gcc make cmake pkg-config libc6-dev libcjson-dev libzstd-dev
       libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev libncurses-dev)
test=(libcmocka-dev python3 python3-yaml procps time curl openssl prometheus valgrind util-linux
      zstd chromium clang libclang-rt-dev python3-torch python3-ipython python3-ipykernel python3-jupyter-client
      tmux)
contrib=(nvtop python3-pynvml)   # Debian's contrib component (they need NVIDIA's non-free driver to be useful)
# Optional, never fatal: simdjson 3.0 or later, diagnose's fast log reader, and g++ for its one C++ file
# (docs/building.md), where apt's lists offer 3.0 or later. A release with an older simdjson (Debian 11's
# 0.7, Ubuntu 20.04's and 22.04's) goes without both: gpumon reads logs with cJSON there, the same results,
# slower. They alone never make deps.sh refresh the package lists.
optional=(libsimdjson-dev g++)
pkgs=("${build[@]}")
[ "$what" = test ] && pkgs+=("${test[@]}")
# node and npm for the page tests' browser driver, unless a node with its npm is there (NodeSource's)
[ "$what" = test ] && ! command -v npm > /dev/null && pkgs+=(nodejs npm)

# puppeteer-core (tests/browser/package.json, locked): drives Debian's chromium in the page tests; it
# never downloads a browser. Installed under tests/browser/node_modules, once.
browser_deps() {
  [ "$what" = test ] || return 0
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
  [ -d "$dir/node_modules/puppeteer-core" ] && return 0
  if ! command -v npm > /dev/null; then echo "deps: no npm: the page's browser tests will fail" >&2; return 0; fi
  # puppeteer-core 24 needs node 18 (Debian 11 has 12): the page test then skips its browser checks, saying so
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2> /dev/null || echo 0)
  if [ "$major" -lt 18 ] 2> /dev/null; then
    echo "deps: node $(node --version 2> /dev/null) is older than puppeteer-core needs (18): the page's browser checks will be skipped" >&2
    return 0
  fi
  echo "deps: npm ci in tests/browser (puppeteer-core)" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error > /dev/null) || echo "deps: npm ci failed in $dir" >&2
}

# Ubuntu spells a few differently: chromium is a snap stub (use chromium-browser's
# absence as "no browser": the report test skips), and the libFuzzer runtime comes
# with clang's own version.
. /etc/os-release 2>/dev/null || true
if [ "${ID:-}" = ubuntu ]; then
  v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
  for i in "${!pkgs[@]}"; do
    case ${pkgs[$i]} in
      chromium) pkgs[$i]=chromium-browser;;
      libclang-rt-dev) pkgs[$i]=libclang-rt-${v:-14}-dev;;
    esac
  done
fi
# (Debian 11's nvtop is 1.1, which has neither the snapshot mode nor the screen that sim_nvtop reads and
# wants NVIDIA's library at a version: left out there)
if [ "$what" = test ] && [ "${ID:-}" = debian ]; then
  [ "${VERSION_ID:-12}" -ge 12 ] 2>/dev/null || contrib=(python3-pynvml)
  pkgs+=("${contrib[@]}")
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# simdjson_ok: apt's lists (as they are now) offer libsimdjson-dev 3.0 or later
simdjson_ok() {
  local v
  v=$(apt-cache show --no-all-versions libsimdjson-dev 2>/dev/null | sed -n 's/^Version: //p' | head -1)
  [ -n "$v" ] && dpkg --compare-versions "$v" ge 3
}
missing=()
for p in "${pkgs[@]}"; do
  installed "$p" || missing+=("$p")
done
optional_missing=()
for p in "${optional[@]}"; do
  installed "$p" || optional_missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then   # the optional ones only where the lists already offer them
  [ ${#optional_missing[@]} -gt 0 ] && simdjson_ok && missing=("${optional_missing[@]}")
  [ ${#missing[@]} -eq 0 ] && { browser_deps; exit 0; }
fi
echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
apt=($SUDO apt-get -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
"${apt[@]}" update -qq
if [ ${#optional_missing[@]} -gt 0 ]; then   # with fresh lists: simdjson 3.0 or later, or neither
  if simdjson_ok; then
    for p in "${optional_missing[@]}"; do
      case " ${missing[*]} " in *" $p "*) ;; *) missing+=("$p");; esac
    done
  else
    echo "deps: libsimdjson-dev 3.0 or later is not available here: left out with g++ (logs read with cJSON)" >&2
  fi
fi

# contrib, for nvtop and python3-pynvml only: beside each source of a Debian archive that apt uses with
# main, the same source (its mirror, suites and Signed-By, in its own format) with contrib, in files of
# deps.sh's own, and a pin that keeps every other package of contrib out.
need_contrib=false
for p in "${missing[@]}"; do
  for c in "${contrib[@]}"; do [ "$p" = "$c" ] && need_contrib=true; done
done
if $need_contrib && ! apt-cache policy | grep -c '/contrib ' > /dev/null; then   # -c: no SIGPIPE to apt-cache
  debian=$(apt-cache policy | awk '
    match($0, /^ *[0-9]+ https?:\/\/[^ ]+ [^ \/]+\/main /) { split($0, f, " "); uri = f[2]; sub(/\/$/, "", uri); next }
    uri != "" && /^ *release / { if ($0 ~ /o=Debian,/) print uri; uri = "" }' | sort -u | tr '\n' ' ')
  d=/etc/apt/sources.list.d
  for f in /etc/apt/sources.list $d/*.list; do if [ -f "$f" ] && [ "$f" != $d/gpumon-contrib.list ]; then cat "$f"; fi; done |
    awk -v ok="$debian" 'BEGIN { n = split(ok, a, " "); for (i = 1; i <= n; i++) deb[a[i]] = 1 }
      /^[ \t]*deb[ \t]/ { line = $0; sub(/#.*/, "", line); opts = ""
        if (match(line, /\[[^]]*\]/)) { opts = substr(line, RSTART, RLENGTH) " "; line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH) }
        n = split(line, w, " "); uri = w[2]; sub(/\/$/, "", uri); m = c = 0
        for (i = 4; i <= n; i++) { if (w[i] == "main") m = 1; if (w[i] == "contrib") c = 1 }
        if ((uri in deb) && m && !c) print "deb " opts w[2] " " w[3] " contrib" }' | $SUDO tee $d/gpumon-contrib.list > /dev/null
  for f in $d/*.sources; do if [ -f "$f" ] && [ "$f" != $d/gpumon-contrib.sources ]; then cat "$f"; echo; fi; done |
    awk -v ok="$debian" 'BEGIN { n = split(ok, a, " "); for (i = 1; i <= n; i++) deb[a[i]] = 1 }
      function flush() {
        if (isdeb && types ~ /(^| )deb( |$)/ && comps ~ /(^| )main( |$)/ && comps !~ /(^| )contrib( |$)/ && !off)
          printf "Types: deb\nURIs: %s\nSuites: %s\nComponents: contrib\n%s\n", uris, suites, sb
        isdeb = off = insb = 0; types = uris = suites = comps = sb = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]/ { if (insb) sb = sb $0 "\n"; next }
      { insb = 0; key = tolower($0); sub(/:.*/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
        if (key == "types") types = val
        else if (key == "uris") { uris = val; n = split(val, u, " "); for (i = 1; i <= n; i++) { sub(/\/$/, "", u[i]); if (u[i] in deb) isdeb = 1 } }
        else if (key == "suites") suites = val
        else if (key == "components") comps = val
        else if (key == "enabled") off = tolower(val) == "no"
        else if (key == "signed-by") { sb = $0 "\n"; insb = 1 } }
      END { flush() }' | $SUDO tee $d/gpumon-contrib.sources > /dev/null
  for f in $d/gpumon-contrib.list $d/gpumon-contrib.sources; do if [ ! -s "$f" ]; then $SUDO rm -f "$f"; fi; done
  if [ -e $d/gpumon-contrib.list ] || [ -e $d/gpumon-contrib.sources ]; then
    printf '%s\n' "# scripts/deps.sh: from contrib, the third-party NVML clients of gpumon's tests only" \
      "Package: ${contrib[*]}" "Pin: release c=contrib" "Pin-Priority: 500" "" \
      "Package: *" "Pin: release c=contrib" "Pin-Priority: -1" | $SUDO tee /etc/apt/preferences.d/gpumon-contrib > /dev/null
    if "${apt[@]}" update -qq; then
      echo "deps: enabled Debian's contrib component for ${contrib[*]} ($d/gpumon-contrib.*)" >&2
    else
      echo "deps: apt refused the contrib sources; going on without ${contrib[*]}" >&2
      $SUDO rm -f $d/gpumon-contrib.list $d/gpumon-contrib.sources /etc/apt/preferences.d/gpumon-contrib
      "${apt[@]}" update -qq
    fi
  else
    echo "deps: no Debian archive among apt's sources: ${contrib[*]} left out" >&2
  fi
fi

# What this release does not have at all is said and left out; a build package is fatal.
avail=() absent=()
for p in "${missing[@]}"; do
  if apt-cache show --no-all-versions "$p" > /dev/null 2>&1; then avail+=("$p"); else absent+=("$p"); fi
done
status=0
if [ ${#absent[@]} -gt 0 ]; then
  echo "deps: not available here: ${absent[*]}" >&2
  for p in "${absent[@]}"; do
    for b in "${build[@]}"; do [ "$p" = "$b" ] && status=1; done   # gpumon cannot build without it
  done
fi
[ ${#avail[@]} -eq 0 ] && { browser_deps; exit $status; }
install() { "${apt[@]}" install -y -qq --no-install-recommends "$@" > /dev/null; }
# python3-pynvml depends on NVIDIA's non-free libnvidia-ml1 (or the virtual libnvidia-ml.so.1), which
# the tests never use: they point pynvml at gpumon's simulated NVML. A local package of deps.sh's own,
# gpumon-test-nvml-provides (no files), provides the virtual name so that Debian's package installs.
for p in "${avail[@]}"; do
  [ "$p" = python3-pynvml ] || continue
  if ! dpkg-query -W -f='${Provides}\n' 2>/dev/null | grep -c 'libnvidia-ml\.so\.1' > /dev/null &&
     ! dpkg-query -W -f='${Status}' libnvidia-ml1 2>/dev/null | grep -q "install ok installed"; then
    dir=$(mktemp -d)
    mkdir "$dir/pkg" "$dir/pkg/DEBIAN"
    printf '%s\n' "Package: gpumon-test-nvml-provides" "Version: 1.0" "Architecture: all" \
      "Maintainer: gpumon's scripts/deps.sh <root@localhost>" "Provides: libnvidia-ml.so.1" "Section: misc" \
      "Priority: optional" "Description: lets python3-pynvml install without NVIDIA's driver library" \
      " Installed by gpumon's scripts/deps.sh test: gpumon's tests load pynvml against gpumon's" \
      " simulated NVML, never against an installed libnvidia-ml.so.1 (this package has no files)." \
      > "$dir/pkg/DEBIAN/control"
    dpkg-deb --build "$dir/pkg" "$dir/provides.deb" > /dev/null && $SUDO dpkg -i "$dir/provides.deb" > /dev/null ||
      echo "deps: could not make gpumon-test-nvml-provides: python3-pynvml will not install" >&2
    rm -rf "$dir"
  fi
done
if ! install "${avail[@]}"; then
  # a download that failed (a 404: the lists are older than the archive) is fetched again with fresh lists;
  # then one package at a time, so that one that cannot install does not stop the others
  echo "deps: installing failed; refreshing the package lists and trying again" >&2
  "${apt[@]}" update -qq || true
  if ! install "${avail[@]}"; then
    left=()
    for p in "${avail[@]}"; do
      install "$p" 2>/dev/null || left+=("$p")
    done
    if [ ${#left[@]} -gt 0 ]; then
      echo "deps: could not install: ${left[*]}" >&2
      for p in "${left[@]}"; do
        for b in "${build[@]}"; do [ "$p" = "$b" ] && status=1; done
      done
    fi
  fi
fi
browser_deps
exit $status
