#!/usr/bin/env bash
# Installs every Debian 12 package powerzoo needs to build, test and run, the Python module's
# (pybind11-dev, python3-pytest), the Python examples' (python3-torch) and the TensorBoard
# test's (python3-protobuf) included (idempotent, non-interactive);
# with --fuzz also clang-14 with libFuzzer and its sanitizer runtimes (make fuzz).
set -euo pipefail
PKGS=(build-essential cmake pkg-config git ccache
      libxtensor-dev libxtensor-blas-dev libxsimd-dev libopenblas-dev liblapack-dev
      libboost-program-options-dev libboost-dev libhdf5-dev hdf5-tools
      libtomlplusplus-dev doctest-dev coinor-libclp-dev nlohmann-json3-dev libssl-dev
      libsuitesparse-dev coinor-libipopt-dev
      python3 python3-h5py python3-numpy python3-matplotlib
      pybind11-dev python3-pytest python3-torch python3-protobuf)
if [ "${1:-}" = "--fuzz" ]; then
  PKGS+=(clang-14 libfuzzer-14-dev libclang-rt-14-dev)
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
