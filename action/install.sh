#!/usr/bin/env bash
# Install ghattempt for the Action; benchmarks/action_install.py runs these same commands.
#
#   action/install.sh deps PYTHON VENV   create VENV with PYTHON and install the pinned,
#                                        hash-checked wheels of action/requirements.txt
#   action/install.sh self VENV          install ghattempt itself from this checkout,
#                                        without dependencies and without any download
#
# `deps` refuses any file whose sha256 is not in the lock (--require-hashes), installs
# nothing the lock does not name (--no-deps) and never builds from source
# (--only-binary :all:). It skips bytecode compilation (--no-compile): githubkit-schemas
# alone is ~6,700 files, compiling them all takes longer than the rest of the install,
# and the few modules a command imports compile on first use. `self` builds with the locked hatchling (--no-build-isolation)
# and reads no index (--no-index).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
pip_flags=(--disable-pip-version-check --no-input --quiet)
case "${1:-}" in
  deps)
    [ $# -eq 3 ] || { echo "usage: $0 deps PYTHON VENV" >&2; exit 2; }
    # The venv gets no pip of its own (saves seconds); the base interpreter's pip
    # (>= 22.3 for --python) installs into it.
    "$2" -m venv --without-pip "$3"
    printf '%s\n' "$2" >"$3/.ghattempt-base-python"
    "$2" -m pip --python "$3/bin/python" install "${pip_flags[@]}" \
      --require-hashes --no-deps --only-binary :all: --no-compile \
      -r "$src/action/requirements.txt"
    ;;
  self)
    [ $# -eq 2 ] || { echo "usage: $0 self VENV" >&2; exit 2; }
    base=$(cat "$2/.ghattempt-base-python")
    "$base" -m pip --python "$2/bin/python" install "${pip_flags[@]}" \
      --no-deps --no-build-isolation --no-index --force-reinstall \
      "$src"
    ;;
  *)
    echo "usage: $0 deps PYTHON VENV | self VENV" >&2
    exit 2
    ;;
esac
