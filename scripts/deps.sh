#!/usr/bin/env bash
# deps.sh [build|test]: installs the packages gpumon needs, only those
# missing, with apt on Debian 11/12 and Ubuntu 20.04/22.04/24.04.
#   build  what building and running gpumon needs (scripts/demo)
#   test   that plus the test suite's tools (scripts/test, CI; the default)
# Without root it uses sudo. A package that is not available where one has
# a fallback (Ubuntu's names) is replaced by the fallback.
set -euo pipefail
what=${1:-test}
case $what in build|test) ;; *) echo "usage: scripts/deps.sh [build|test]" >&2; exit 2;; esac

build=(gcc make cmake pkg-config libc6-dev libcjson-dev libzstd-dev
       libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev libncurses-dev)
test=(libcmocka-dev python3 python3-yaml procps time curl openssl prometheus valgrind util-linux
      zstd chromium clang libclang-rt-dev python3-torch python3-ipython python3-ipykernel python3-jupyter-client
      tmux)
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

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && { browser_deps; exit 0; }
echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  # one package this release lacks must not stop the others: install them one by one and name the rest
  left=()
  for p in "${missing[@]}"; do
    $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 || left+=("$p")
  done
  echo "deps: could not install: ${left[*]}" >&2
  for p in "${left[@]}"; do
    for b in "${build[@]}"; do [ "$p" = "$b" ] && exit 1; done   # gpumon cannot build without it
  done
fi
browser_deps
exit 0
