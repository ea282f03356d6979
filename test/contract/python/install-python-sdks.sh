#!/usr/bin/env bash
# Installs the official Python SDKs pinned in requirements.txt into a venv at
# .tollgate/python-sdks (repository root), for test/contract/python-sdk-matrix.test.ts.
# Idempotent: when the venv already holds exactly this requirements file (compared by hash),
# it returns at once. Python: $TOLLGATE_PYTHON, else python3 (3.9 or newer).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
venv="$repo/.tollgate/python-sdks"
requirements="$here/requirements.txt"
python="${TOLLGATE_PYTHON:-python3}"
stamp="$venv/requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  echo "python SDKs already installed in $venv"
  exit 0
fi

command -v "$python" >/dev/null || { echo "install-python-sdks: $python not found (set TOLLGATE_PYTHON)" >&2; exit 1; }
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' \
  || { echo "install-python-sdks: $python is older than 3.9" >&2; exit 1; }

rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv" || { echo "install-python-sdks: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
echo "$wanted" >"$stamp"
echo "python SDKs installed in $venv: $("$venv/bin/python" -m pip freeze --disable-pip-version-check | grep -Ei '^(openai|anthropic|google-genai)==' | tr '\n' ' ')"
