# shellcheck shell=bash
# Sourced by scripts/test and scripts/demo: make sure .venv is a virtual environment of a
# Python 3.11 or newer (PYTHON, else python3) holding ghattempt with the extras "$1" asks
# for (e.g. "emulator" for the demo, "test" for the suite), installed quietly once.
#
# - An interpreter older than 3.11 is refused in one line, before anything is installed.
# - A .venv made by another Python (another version, or a broken one) is made again.
# - Each set of extras has its own stamp, so the demo installs only what it needs and the
#   suite still installs its whole toolchain; a newer pyproject.toml installs again.
ghattempt_venv() {
  local extras=$1 py=${PYTHON:-python3} want have stamp
  if ! command -v "$py" >/dev/null 2>&1; then
    echo "$0: no $py on PATH; ghattempt needs Python 3.11 or newer (set PYTHON=python3.11)" >&2
    exit 2
  fi
  want=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "$0: ghattempt needs Python 3.11 or newer; $py is $want (set PYTHON=python3.11 or newer)" >&2
    exit 2
  fi
  have=""
  if [ -x .venv/bin/python ]; then
    have=$(.venv/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
  fi
  if [ "$have" != "$want" ]; then
    if [ -e .venv ]; then
      echo "$0: .venv was made by Python ${have:-(broken)}, not $want: making it again" >&2
      rm -rf .venv
    fi
    "$py" -m venv .venv
  fi
  stamp=.venv/.ghattempt-installed-$extras
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]"
    touch "$stamp"
  fi
}
