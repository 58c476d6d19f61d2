#!/usr/bin/env bash
# deps.sh: installs the Debian packages gpumon's build and tests need, only
# those missing. Used by the quick start, the test command and CI.
set -euo pipefail
pkgs=(gcc make cmake pkg-config libcmocka-dev python3 procps time
      libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev curl openssl prometheus valgrind util-linux)
pkgs+=(python3-yaml)   # tests/cli/test_deploy.sh and test_prometheus.sh read YAML
pkgs+=(libcjson-dev chromium)   # diagnose/report read logs with cJSON; the report opens in chromium
pkgs+=(clang libclang-rt-dev)   # the fuzz harnesses (libFuzzer)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
