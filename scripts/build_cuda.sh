#!/usr/bin/env bash
# Build anonlm with candle's CUDA backend on a machine without a CUDA toolkit or GPU.
#
# The toolkit comes from NVIDIA's wheels on PyPI (nvcc, headers, cuBLAS, cuRAND, NVRTC, the
# runtime), unpacked into one CUDA_HOME-style folder. The driver library (libcuda.so.1) ships only
# with the GPU driver, so the link step uses a stub with the same soname and the driver-API symbols
# cudarc calls; at run time the real driver library of the GPU machine is loaded instead, exactly as
# with NVIDIA's own link stubs.
#
# Usage: scripts/build_cuda.sh [--toolkit-only | CARGO_ARGS...]
#   no arguments: cargo build --release --features cuda; otherwise `cargo CARGO_ARGS...` in the
#   same environment, e.g. `scripts/build_cuda.sh test --release --features cuda --test
#   it --no-run` for the GPU test binary.
#   CUDA_VERSION_PINS  CUDA 13.0 by default: PTX from a newer nvcc is refused by older drivers, so
#                      match the oldest driver you will run on (driver 580 runs CUDA 13.0).
#   CUDA_COMPUTE_CAP   target GPU (default 90: H100/H200); the fused kernels are compiled for it.
#   CUDA_TOOLKIT_DIR   where the toolkit is unpacked (default target/cuda-toolkit).
#   CARGO_TARGET_DIR   cargo's output (default target/cuda: keeps the CPU build's artifacts intact).
# The binary lands in $CARGO_TARGET_DIR/release/anonlm. At run time it needs libcublas.so.13,
# libcublasLt.so.13, libcurand.so.10, libnvrtc.so.13 and libcudart.so.13 on LD_LIBRARY_PATH (a CUDA
# 13 toolkit, or the nvidia/cu13/lib folder of a PyTorch cu130 install) and the driver's libcuda.so.1.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

toolkit=${CUDA_TOOLKIT_DIR:-$repo/target/cuda-toolkit}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target/cuda}
export CUDA_COMPUTE_CAP=${CUDA_COMPUTE_CAP:-90}
pins=${CUDA_VERSION_PINS:-"nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88
  nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85 nvidia-cublas==13.0.2.14
  nvidia-cuda-nvrtc==13.0.88 nvidia-curand==10.4.0.35"}

if [ ! -x "$toolkit/bin/nvcc" ]; then
    echo "build_cuda: fetching the CUDA toolkit wheels into $toolkit" >&2
    rm -rf "$toolkit.partial"
    mkdir -p "$toolkit.partial/wheels" "$toolkit.partial/unpacked"
    # shellcheck disable=SC2086
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -d "$toolkit.partial/wheels" $pins
    for wheel in "$toolkit.partial"/wheels/*.whl; do
        python3 -m zipfile -e "$wheel" "$toolkit.partial/unpacked"
    done
    # Every CUDA 13 wheel puts its files under nvidia/cu13/{bin,include,lib,nvvm}.
    mv "$toolkit.partial/unpacked/nvidia/cu13" "$toolkit.partial/root"
    root="$toolkit.partial/root"
    chmod +x "$root"/bin/* "$root"/nvvm/bin/* 2>/dev/null || true
    ln -s lib "$root/lib64"
    for lib in "$root"/lib/lib*.so.*; do
        base=${lib%%.so.*}
        [ -e "$base.so" ] || ln -s "$(basename "$lib")" "$base.so"
    done
    # The wheel's nvcc.profile points at a targets/<arch> layout that the wheels do not have.
    cat >"$root/bin/nvcc.profile" <<'PROFILE'
TOP              = $(_HERE_)/..
CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(CICC_PATH):$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/include/cccl" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib/stubs" "-L$(TOP)/lib"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
PROFILE
    rm -rf "$toolkit"
    mv "$root" "$toolkit"
    rm -rf "$toolkit.partial"
fi

# The driver stub: every driver-API function that cudarc can call, from cudarc's own bindings.
stub="$toolkit/lib/stubs/libcuda.so"
if [ ! -e "$stub" ]; then
    cudarc_dir=$(cargo metadata --format-version 1 --features cuda 2>/dev/null | python3 -c '
import json, sys, os
meta = json.load(sys.stdin)
for package in meta["packages"]:
    if package["name"] == "cudarc":
        print(os.path.dirname(package["manifest_path"]))
        break
')
    [ -n "$cudarc_dir" ] || { echo "build_cuda: cudarc source not found (cargo fetch first)" >&2; exit 2; }
    mkdir -p "$toolkit/lib/stubs"
    grep -ohE '\bfn cu[A-Z][A-Za-z0-9_]*\(' "$cudarc_dir/src/driver/sys/mod.rs" |
        sed -E 's/^fn (.*)\($/void \1(void) {}/' | sort -u >"$toolkit/lib/stubs/libcuda_stub.c"
    cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stub" "$toolkit/lib/stubs/libcuda_stub.c"
fi

if [ "${1:-}" = "--toolkit-only" ]; then
    echo "$toolkit"
    exit 0
fi

export CUDA_HOME="$toolkit" CUDA_PATH="$toolkit" CUDA_ROOT="$toolkit"
export PATH="$toolkit/bin:$PATH"
export LIBRARY_PATH="$toolkit/lib/stubs:$toolkit/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$toolkit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvcc --version | tail -2 >&2
if [ $# -eq 0 ]; then
    cargo build --release --features cuda
    echo "build_cuda: $CARGO_TARGET_DIR/release/anonlm" >&2
else
    cargo "$@"
fi
