#!/usr/bin/env bash
# Install ghattempt for the Action; benchmarks/action_install.py runs these same commands.
#
#   action/install.sh deps PYTHON VENV   create VENV with PYTHON and install the pinned,
#                                        hash-checked wheels of action/requirements.txt
#   action/install.sh self VENV          copy ghattempt itself from this checkout into
#                                        VENV: no build, no download, no build backend
#
# `deps` refuses any file whose sha256 is not in the lock (--require-hashes), installs
# nothing the lock does not name (--no-deps) and never builds from source
# (--only-binary :all:). It skips bytecode compilation (--no-compile): the few modules a
# command imports compile on first use.
#
# `self` copies the package directory ghattempt/ (without __pycache__) and the reader
# bundle with its digest (readers/business-attempt.pyz{,.sha256}, as ghattempt/_bundle,
# where a wheel puts them) into the venv's site-packages; readers/history stays in the
# checkout. A pure-Python package needs nothing more to import, so no build backend is
# installed or run.
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
    site=$("$2/bin/python" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    [ -d "$site" ] || { echo "$0: no site-packages in $2" >&2; exit 2; }
    rm -rf "$site/ghattempt"
    mkdir -p "$site/ghattempt/_bundle"
    # tar, not `cp --parents`: the same flags on GNU (Linux) and BSD (macOS) runners
    (cd "$src" && tar -cf - --exclude=__pycache__ ghattempt) | (cd "$site" && tar -xf -)
    cp "$src/readers/business-attempt.pyz" "$src/readers/business-attempt.pyz.sha256" \
      "$site/ghattempt/_bundle/"
    ;;
  *)
    echo "usage: $0 deps PYTHON VENV | self VENV" >&2
    exit 2
    ;;
esac
