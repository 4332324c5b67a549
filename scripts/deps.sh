#!/usr/bin/env bash
# Installs what stepscope needs to build, test and run its demo on Debian.
#   scripts/deps.sh            build + test + demo packages
#   scripts/deps.sh bench      also what `make bench` compares against (OpenBLAS, LTTng)
#   scripts/deps.sh interop    also Debian's PyTorch for the interop traces, and the Python
#                              headers the Python package (python/) builds against
# As root it runs apt-get; otherwise it prints the exact command and exits 1.
set -eu

need=(make gcc clang-format zlib1g-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
      python3 python3-venv protobuf-compiler pkg-config libisal-dev
      libopenmpi-dev openmpi-bin)  # --mpi (docs/hosts.md); the build goes without it
for extra in "$@"; do
  case "$extra" in
    bench) need+=(libopenblas-dev liblttng-ust-dev lttng-tools isal) ;;
    interop) need+=(python3-torch python3-dev) ;;
    fuzz) need+=(clang libclang-rt-14-dev) ;;
    browser) need+=(chromium) ;;
    *) echo "deps.sh: unknown group '$extra' (bench, interop, fuzz, browser)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${need[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} = 0 ] && exit 0

if [ "$(id -u)" = 0 ]; then
  echo "deps.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "deps.sh: missing packages: ${missing[*]}" >&2
  echo "run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
