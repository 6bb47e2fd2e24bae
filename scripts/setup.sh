#!/usr/bin/env bash
# Installs whatever is missing for building and testing, and nothing else:
# Debian packages (toolchains, libFuzzer, Chromium, torch for fixtures) and npm packages.
# Fast when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
need_pkg() { # need_pkg PACKAGE CHECK-COMMAND...
  local pkg=$1; shift
  "$@" >/dev/null 2>&1 || missing+=("$pkg")
}
need_pkg cmake command -v cmake
need_pkg ninja-build command -v ninja
need_pkg g++ command -v g++
need_pkg clang command -v clang++
need_pkg libclang-rt-14-dev compgen -G '/usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.fuzzer-x86_64.a'
need_pkg libgtest-dev test -f /usr/include/gtest/gtest.h
need_pkg nlohmann-json3-dev test -f /usr/include/nlohmann/json.hpp
need_pkg emscripten command -v em++
need_pkg chromium test -x /usr/bin/chromium
need_pkg python3-torch /usr/bin/python3 -c 'import torch'
need_pkg nodejs command -v node
need_pkg npm command -v npm

if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) != 0 ]]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm dependencies: reinstall only when package.json / the lock file changed.
stamp=node_modules/.wasmlm-setup-stamp
want=$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1)
if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  echo "setup: installing npm packages"
  # `npm install` (not `npm ci`): with omit-lockfile-registry-resolved set, as
  # on these machines, npm ci rejects the lock's optional platform packages.
  npm install --no-audit --no-fund --loglevel=error
  want=$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1)
  echo "$want" > "$stamp"
fi
