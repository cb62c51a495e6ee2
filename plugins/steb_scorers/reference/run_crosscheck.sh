#!/usr/bin/env bash
# Cross-check steb's BLEURT and COMET against the reference packages (bleurt-pytorch, unbabel-comet).
#
# The packages need transformers 4.x (and numpy<2, huggingface-hub<1, protobuf<5), so they get a venv of
# their own, .venv-reference (git-ignored). build_reference.py runs there: it builds tiny random models in
# the packages' published layouts and scores them with the packages' own APIs; crosscheck.py then scores
# the same inputs with steb in steb's venv and fails if any segment or system score differs by more than
# 1e-4. Offline apart from PyPI (for the reference venv's first install).
#
# Usage (from the repository root): plugins/steb_scorers/reference/run_crosscheck.sh [OUT_DIR]
#   PYTHON (default python3) makes the reference venv, REFERENCE_VENV (default .venv-reference) is where;
#   STEB_PYTHON (default .venv/bin/python) runs steb.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
ref_venv="${REFERENCE_VENV:-$root/.venv-reference}"
steb_python="${STEB_PYTHON:-$root/.venv/bin/python}"
out="${1:-$(mktemp -d -t steb-reference-XXXXXX)}"
ref_pip() { "$ref_venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"; }

if [ ! -x "$ref_venv/bin/python" ] || ! "$ref_venv/bin/python" -c 'import comet, bleurt_pytorch, sentencepiece, pkg_resources' 2>/dev/null; then
    "${PYTHON:-python3}" -m venv "$ref_venv"
    # torch first, pinned to the CPU build (so no dependency resolves it to the CUDA build)
    ref_pip "torch==2.13.0"
    # the versions the README's figures were measured with; unbabel-comet 2.2.7 pins transformers<5, numpy<2,
    # protobuf<5 (sentencepiece 0.2.1+ needs protobuf>=5, hence 0.2.0); pkg_resources (setuptools<81) is
    # what unbabel-comet 2.2.7 uses to honour `sparsemax_patch`
    ref_pip "torch==2.13.0" "unbabel-comet==2.2.7" "bleurt-pytorch==0.0.1" \
        "transformers==4.57.6" "sentencepiece==0.2.0" "setuptools<81" "numpy<2" "huggingface-hub<1"
fi

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
echo "== building and scoring tiny models with the reference packages in $out"
mkdir -p "$out"
"$ref_venv/bin/python" "$here/build_reference.py" "$out" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "== scoring them with steb"
"$steb_python" "$here/crosscheck.py" "$out" --json "$out/crosscheck.json"
