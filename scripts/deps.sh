#!/usr/bin/env bash
# deps.sh: installs the Debian packages gpumon's build and tests need, only
# those missing. Used by the quick start, the test command and CI.
set -euo pipefail
pkgs=(gcc make cmake pkg-config libcmocka-dev python3 procps time
      libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev curl openssl prometheus
      clang libclang-rt-dev)
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
