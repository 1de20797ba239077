"""The work a ``run`` step does, as a real process: a script run exactly as a GitHub
Actions ``run:`` step runs it (or an argv), its output streamed, the runner's signals
forwarded; the phase's materials collected from globs; a ``verify`` run the same way
(docs/run.md).

Running a script as a ``run:`` step does (GitHub docs, "Workflow syntax for GitHub
Actions", ``jobs.<job_id>.steps[*].shell``; the runner's ``ScriptHandler``):

=============  ==============================================  =========
``shell``      command run                                     file name
=============  ==============================================  =========
(none)         ``bash -e {0}`` (``sh -e {0}`` without bash)    ``.sh``
``bash``       ``bash --noprofile --norc -eo pipefail {0}``    ``.sh``
``sh``         ``sh -e {0}``                                   ``.sh``
``python``     ``python {0}``                                  ``.py``
``pwsh``       ``pwsh -command ". '{0}'"``                     ``.ps1``
``powershell`` ``powershell -command ". '{0}'"``               ``.ps1``
``CMD ARGS``   ``CMD`` with ``ARGS``, ``{0}`` the file         (none)
=============  ==============================================  =========

The script is written as it is (UTF-8, no BOM; PowerShell's get the runner's
``$ErrorActionPreference = 'stop'`` line before and its exit-code line after) to a new
file under ``RUNNER_TEMP`` (else the system's temporary directory), removed afterwards.
A custom shell is split at its first space into the command and its arguments, which
must hold ``{0}`` (a bare built-in name takes the built-in arguments). The working
directory is ``working-directory`` joined to ``GITHUB_WORKSPACE`` (an absolute one
wins; without a workspace, the current directory). The command is looked up on the
step environment's ``PATH``.

The work runs in a process group of its own. Its standard output passes straight
through; its standard error is copied through as it comes and its last non-empty line
kept (300 characters at most, control characters dropped, tokens and the given secrets
replaced by ``[redacted]``). A SIGINT or SIGTERM sent to this process is forwarded to the
work's group; if the work has not ended ``kill_after`` seconds later its group is
killed, so that when :func:`run_work` returns the work has ended. The result then says
``signal`` (the caller records ``unknown``, never ``failed``: the effect may have
happened).
"""

from __future__ import annotations

import fnmatch
import glob as _glob
import hashlib
import os
import re
import shlex
import shutil
import signal as _signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, BinaryIO

from ghattempt.core import ObservedFile, workspace_path_problem
from ghattempt.errors import Fault, GhattemptError

__all__ = ["ERROR_LINE_MAX", "Script", "VerifyResult", "WorkInputError", "WorkResult",
           "check_work", "collect_materials", "observe", "run_verify", "run_work",
           "script_extension", "shell_command"]

ERROR_LINE_MAX = 300
"""Most characters kept of the work's last line of error output."""

_BUILTIN_ARGS = {
    "bash": "--noprofile --norc -eo pipefail {0}",
    "sh": "-e {0}",
    "python": "{0}",
    "pwsh": "-command \". '{0}'\"",
    "powershell": "-command \". '{0}'\"",
}
_EXTENSIONS = {"bash": ".sh", "sh": ".sh", "python": ".py", "pwsh": ".ps1",
               "powershell": ".ps1"}
_FORWARDED = (_signal.SIGINT, _signal.SIGTERM)
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f]")
_TAIL_BYTES = 8192


class WorkInputError(GhattemptError):
    """The step's work or materials input is wrong (a shell without ``{0}``, a shell not
    on ``PATH``, a glob matching nothing, a path outside the workspace); nothing ran."""

    fault = Fault.BAD_INPUT


@dataclass(frozen=True)
class Script:
    """A ``run:`` script and its ``shell`` (None: the default shell)."""

    text: str
    shell: str | None = None


@dataclass(frozen=True)
class WorkResult:
    """How the work ended.

    ``exit_code`` is its exit status (128 + N when signal N ended it); ``signal`` the
    name of the signal this process received and forwarded while it ran (``SIGTERM``),
    else of the signal that killed the work's own process (``SIGKILL``: the OOM killer;
    its effect may have happened as well), else None; ``error_line`` the last non-empty
    line of its error output (bounded, scrubbed), else None;
    ``stdout_bytes``/``stdout_digest`` the size and ``sha256:`` digest of its standard
    output when it was captured (verify), else None.
    """

    exit_code: int
    signal: str | None = None
    error_line: str | None = None
    stdout_bytes: int | None = None
    stdout_digest: str | None = None
    stdout: bytes | None = None

    @property
    def interrupted(self) -> bool:
        """True when the runner's signal interrupted the work."""
        return self.signal is not None


@dataclass(frozen=True)
class VerifyResult:
    """A verify's verdict: ``outcome`` is ``present`` (exit 0), ``absent`` (exit 1) or
    ``neither`` (any other exit, or interrupted); ``work`` how the process ended (its
    standard output captured: the ``readback`` material's bytes)."""

    outcome: str
    work: WorkResult


def _which(command: str, env: Mapping[str, str]) -> str:
    found = shutil.which(command, path=env.get("PATH", os.defpath))
    if found is None:
        raise WorkInputError(f"shell command {command!r} is not on the step's PATH; install "
                             "it or name another shell")
    return found


def script_extension(shell: str | None) -> str:
    """The file name extension the runner gives a script for ``shell``."""
    if shell is None or not shell.strip():
        return ".sh"
    return _EXTENSIONS.get(shell.strip().partition(" ")[0], "")


def shell_command(shell: str | None, script_file: str, env: Mapping[str, str]) -> list[str]:
    """The argv that runs ``script_file`` with ``shell`` (see the module table).

    Raises:
        WorkInputError: the shell is ``cmd`` (Windows only), has no ``{0}``, or its
            command is not on ``env``'s ``PATH``.
    """
    if shell is None or not shell.strip():
        path = env.get("PATH", os.defpath)
        command = shutil.which("bash", path=path) or shutil.which("sh", path=path)
        if command is None:
            raise WorkInputError("neither bash nor sh is on the step's PATH")
        return [command, "-e", script_file]
    name, _, args = shell.strip().partition(" ")
    args = args.strip()
    if name == "cmd":
        raise WorkInputError("shell 'cmd' runs on Windows runners only")
    if not args:
        if name not in _BUILTIN_ARGS:
            raise WorkInputError(f"shell {shell!r} is not a built-in (bash, sh, python, pwsh, "
                                 "powershell) nor a command with '{0}' for the script file")
        args = _BUILTIN_ARGS[name]
    if "{0}" not in args:
        raise WorkInputError(f"shell {shell!r} must name the script file as '{{0}}', e.g. "
                             f"'{name} {{0}}'")
    try:
        tokens = shlex.split(args)
    except ValueError as exc:
        raise WorkInputError(f"shell {shell!r}: {exc}") from None
    return [_which(name, env), *(t.replace("{0}", script_file) for t in tokens)]


def _fix_up(shell: str | None, text: str) -> str:
    name = (shell or "").strip().partition(" ")[0]
    if name in ("pwsh", "powershell"):
        return ("$ErrorActionPreference = 'stop'\n" + text + "\nif ((Test-Path -LiteralPath "
                "variable:\\LASTEXITCODE)) { exit $LASTEXITCODE }")
    return text


def _directory(working_directory: str | None, env: Mapping[str, str]) -> str:
    base = env.get("GITHUB_WORKSPACE") or os.getcwd()
    where = os.path.join(base, working_directory or "")
    if not os.path.isdir(where):
        raise WorkInputError(f"working-directory {where!r} is not a directory")
    return where


def _last_line(tail: bytes, secrets: Iterable[str]) -> str | None:
    from ghattempt.github import redact

    for raw in reversed(tail.decode("utf-8", "replace").splitlines()):
        line = " ".join(_CONTROL.sub("", raw).split())
        if line:
            line = redact(line, secrets)
            return line if len(line) <= ERROR_LINE_MAX else line[:ERROR_LINE_MAX - 1] + "\u2026"
    return None


class _Pump(threading.Thread):
    """Copies a pipe to ``out`` as it comes; keeps a hash, a size, a tail and (when
    asked) the whole of it."""

    def __init__(self, pipe: IO[bytes], out: IO[bytes] | None, keep: bool) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.out = out
        self.keep = bytearray() if keep else None
        self.hash = hashlib.sha256()
        self.size = 0
        self.tail = b""

    def run(self) -> None:
        read = getattr(self.pipe, "read1", self.pipe.read)
        while True:
            chunk = read(65536)
            if not chunk:
                break
            self.hash.update(chunk)
            self.size += len(chunk)
            self.tail = (self.tail + chunk)[-_TAIL_BYTES:]
            if self.keep is not None:
                self.keep += chunk
            if self.out is not None:
                try:
                    self.out.write(chunk)
                    self.out.flush()
                except (OSError, ValueError):
                    self.out = None  # our own output went away; the work goes on


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, sig)
        else:  # pragma: no cover - POSIX runners only
            proc.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass


def check_work(command: Script | Sequence[str], *, env: Mapping[str, str] | None = None,
               working_directory: str | None = None) -> str:
    """What :func:`run_work` checks before it starts anything, without running it: the
    working directory (returned, joined to the workspace), the shell or the command (on
    the step's ``PATH``; a path with a separator: an executable file there). A ``run``
    step calls it before it writes anything, so that a typo is bad input, not a
    ``started`` phase whose work never began.

    Raises:
        WorkInputError: as :func:`run_work` would, before it ran anything.
    """
    environment = os.environ if env is None else env
    where = _directory(working_directory, environment)
    if isinstance(command, Script):
        shell_command(command.shell, "{0}", environment)
        return where
    argv = list(command)
    if not argv:
        raise WorkInputError("no command to run")
    if os.sep in argv[0]:
        path = os.path.join(where, argv[0])
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise WorkInputError(f"command {argv[0]!r} is not an executable file in "
                                 f"{where!r}; check the path (and its mode)")
    elif shutil.which(argv[0], path=environment.get("PATH", os.defpath)) is None:
        raise WorkInputError(f"command {argv[0]!r} is not on the step's PATH")
    return where


def run_work(command: Script | Sequence[str], *, env: Mapping[str, str] | None = None,
             working_directory: str | None = None, secrets: Iterable[str] = (),
             capture_stdout: bool = False, kill_after: float = 5.0,
             stdout: BinaryIO | None = None, stderr: BinaryIO | None = None) -> WorkResult:
    """Run the work to its end (see the module docstring) and say how it ended.

    Args:
        command: a ``Script`` (run as a ``run:`` step would) or an argv run directly.
        env: the step's environment (default: this process's).
        working_directory: joined to ``GITHUB_WORKSPACE`` (or the current directory).
        secrets: values scrubbed from the kept error line (tokens are scrubbed anyway).
        capture_stdout: keep the standard output (hash, size, bytes) and copy it to
            ``stdout`` instead of passing the descriptor through (a verify).
        kill_after: seconds between a forwarded signal and killing the work's group.
        stdout, stderr: where the output is copied (default: this process's).

    Raises:
        WorkInputError: a bad shell, working directory or command; nothing ran.
    """
    environment = dict(os.environ if env is None else env)
    where = check_work(command, env=environment, working_directory=working_directory)
    script_file: str | None = None
    if isinstance(command, Script):
        temp = environment.get("RUNNER_TEMP") or tempfile.gettempdir()
        script_file = os.path.join(temp, f"{uuid.uuid4()}{script_extension(command.shell)}")
        argv = shell_command(command.shell, script_file, environment)
        with open(script_file, "w", encoding="utf-8", newline="") as f:
            f.write(_fix_up(command.shell, command.text))
    else:
        argv = list(command)
    try:
        return _run(argv, environment, where, secrets, capture_stdout, kill_after,
                    stdout, stderr)
    finally:
        if script_file is not None:
            try:
                os.unlink(script_file)
            except OSError:
                pass


def _run(argv: list[str], env: dict[str, str], where: str, secrets: Iterable[str],
         capture_stdout: bool, kill_after: float, stdout: BinaryIO | None,
         stderr: BinaryIO | None) -> WorkResult:
    received: list[int] = []

    def forward(signum: int, frame: object) -> None:
        received.append(signum)  # the loop below forwards it to the work's group

    main = threading.current_thread() is threading.main_thread()
    previous = {}
    if main:
        for sig in _FORWARDED:
            previous[sig] = _signal.signal(sig, forward)
    try:
        if received:  # the runner cancelled the step before the work began
            return WorkResult(128 + received[0], _signal.Signals(received[0]).name, None)
        err_out = stderr if stderr is not None else sys.stderr.buffer
        try:
            proc = subprocess.Popen(argv, env=env, cwd=where, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE if capture_stdout else None,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            raise WorkInputError(f"cannot start {argv[0]!r}: {exc.strerror}") from None
        assert proc.stderr is not None
        err = _Pump(proc.stderr, err_out, keep=False)
        err.start()
        out: _Pump | None = None
        if capture_stdout:
            assert proc.stdout is not None
            out = _Pump(proc.stdout, stdout if stdout is not None else sys.stdout.buffer,
                        keep=True)
            out.start()
        deadline: float | None = None
        forwarded = 0
        while True:
            while forwarded < len(received):
                _signal_group(proc, received[forwarded])
                forwarded += 1
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            if received and deadline is None:
                deadline = time.monotonic() + kill_after
            if deadline is not None and time.monotonic() >= deadline:
                _signal_group(proc, _signal.SIGKILL)
                deadline = float("inf")
        err.join()
        if out is not None:
            out.join()
        code = proc.returncode
        exit_code = 128 - code if code < 0 else code
        sent = _signal.Signals(received[0]).name if received else _killed_by(code)
        return WorkResult(exit_code, sent, _last_line(err.tail, secrets),
                          out.size if out is not None else None,
                          "sha256:" + out.hash.hexdigest() if out is not None else None,
                          bytes(out.keep) if out is not None and out.keep is not None
                          else None)
    finally:
        for sig, handler in previous.items():
            _signal.signal(sig, handler)


def _killed_by(code: int) -> str | None:
    """The name of the signal that ended the work's own process (a negative return
    code) when nobody forwarded one: the OOM killer's SIGKILL, a SIGSEGV. The work said
    nothing then, and its effect may have happened: it is interrupted, never failed."""
    if code >= 0:
        return None
    try:
        return _signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def run_verify(command: Script | Sequence[str], **kwargs: object) -> VerifyResult:
    """Run a verify like the work (``run_work``, its standard output captured): exit 0
    means the effect is in place (``present``), 1 that it is proven absent (``absent``),
    anything else — or an interruption — that it cannot tell (``neither``)."""
    work = run_work(command, capture_stdout=True, **kwargs)  # type: ignore[arg-type]
    if work.interrupted:
        return VerifyResult("neither", work)
    outcome = {0: "present", 1: "absent"}.get(work.exit_code, "neither")
    return VerifyResult(outcome, work)


# ------------------------------------------------------------------------ materials


def _digest_file(path: str) -> tuple[int, str]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            h.update(chunk)
            size += len(chunk)
    return size, "sha256:" + h.hexdigest()


def _inside(root: str, path: str) -> bool:
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(path)]) == real_root


def _names(directory: str, pattern: str) -> list[str]:
    """The entries of ``directory`` a glob component sees: hidden ones only when the
    component starts with a dot, as ``glob`` does; none when it is no directory."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return sorted(n for n in names if not n.startswith(".") or pattern.startswith("."))


def _below(root: str, rel: str) -> list[str]:
    """``rel`` and every entry under it, links to directories left out (neither listed
    nor followed), hidden entries too (as ``**`` does)."""
    out = [rel]
    for name in _names(os.path.join(root, rel) if rel else root, ""):
        child = os.path.join(rel, name) if rel else name
        full = os.path.join(root, child)
        if os.path.isdir(full):
            if not os.path.islink(full):
                out += _below(root, child)
        else:
            out.append(child)
    return out


def _glob_matches(root: str, pattern: str) -> list[str]:
    """The paths under ``root`` that ``pattern`` matches, as ``glob.glob(pattern,
    root_dir=root, recursive=True)`` does, except that ``**`` never follows a link to a
    directory: Python's glob does, and links that point back up (``a -> .``) make it
    walk 2**40 paths (two links) or fail on ELOOP (one). A link named by a component
    (``dist/latest/*``) is followed: the pattern's length bounds it."""
    parts = [p for p in pattern.replace("\\", "/").split("/") if p not in ("", ".")]
    found: set[str] = set()

    def walk(rel: str, i: int) -> None:
        if i == len(parts):
            if rel:
                found.add(rel)
            return
        part = parts[i]
        base = os.path.join(root, rel) if rel else root
        if part == "**":
            for below in _below(root, rel):
                walk(below, i + 1)
        elif _glob.has_magic(part):
            for name in _names(base, part):
                if fnmatch.fnmatchcase(name, part):
                    walk(os.path.join(rel, name) if rel else name, i + 1)
        elif os.path.lexists(os.path.join(base, part)):
            walk(os.path.join(rel, part) if rel else part, i + 1)

    walk("", 0)
    return sorted(found)


def collect_materials(globs: Sequence[str], *, root: str) -> tuple[ObservedFile, ...]:
    """The files the ``materials`` globs match under ``root`` (the workspace), each with
    its workspace-relative POSIX path, byte count and ``sha256:`` digest, sorted by path.

    A glob is relative to ``root`` (``**`` matches any depth); a matched directory
    contributes every file under it.

    Raises:
        WorkInputError: a glob is absolute or climbs out with ``..``, matches nothing, or
            matches a file outside ``root`` (through a link).
    """
    found: dict[str, ObservedFile] = {}
    for pattern in globs:
        if not pattern.strip():
            continue
        if os.path.isabs(pattern) or ".." in pattern.replace("\\", "/").split("/"):
            raise WorkInputError(f"materials glob {pattern!r} must be relative to the "
                                 "workspace, without '..'")
        matches = _glob_matches(root, pattern)
        files: list[str] = []
        for match in matches:
            full = os.path.join(root, match)
            if os.path.isdir(full):
                for base, _, names in os.walk(full):
                    files += [os.path.relpath(os.path.join(base, n), root) for n in names]
            elif os.path.isfile(full):
                files.append(match)
        if not files:
            raise WorkInputError(f"materials glob {pattern!r} matches no file under "
                                 f"{root!r}; check the path the work writes to")
        for rel in sorted(files):
            full = os.path.join(root, rel)
            if not _inside(root, full):
                raise WorkInputError(f"materials glob {pattern!r} matches {rel!r}, which "
                                     "leads out of the workspace")
            posix = rel.replace(os.sep, "/")
            problem = workspace_path_problem(posix)
            if problem is not None:
                raise WorkInputError(f"materials glob {pattern!r}: {problem}")
            try:
                size, digest = _digest_file(full)
            except OSError as exc:
                raise WorkInputError(f"materials glob {pattern!r} matches {rel!r}, which "
                                     f"cannot be read: {exc.strerror}") from None
            found[posix] = ObservedFile(posix, size, digest)
    return tuple(found[p] for p in sorted(found))


def observe(paths: Iterable[str], *, root: str) -> tuple[ObservedFile, ...]:
    """The files at ``paths`` (workspace-relative) that exist under ``root`` now, with
    their sizes and digests; a missing one is left out (re-qualification then says
    which). For ``run_needs(...).paths``."""
    seen: list[ObservedFile] = []
    for path in paths:
        if workspace_path_problem(path) is not None:
            continue
        full = os.path.join(root, *path.split("/"))
        if os.path.isfile(full) and _inside(root, full):
            size, digest = _digest_file(full)
            seen.append(ObservedFile(path, size, digest))
    return tuple(seen)
