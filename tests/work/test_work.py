"""The work process (ghattempt.work): real subprocesses run as a ``run:`` step runs
them, output streamed, the runner's signals forwarded, materials collected, verify."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ghattempt.work import (
    Script,
    WorkInputError,
    collect_materials,
    observe,
    run_verify,
    run_work,
)

VENV_BIN = str(Path(sys.executable).parent)


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {"PATH": f"{VENV_BIN}:/usr/bin:/bin", "GITHUB_WORKSPACE": str(tmp_path),
           "RUNNER_TEMP": str(tmp_path / "temp"), "HOME": str(tmp_path)}
    (tmp_path / "temp").mkdir(exist_ok=True)
    env.update(extra)
    return env


def test_a_script_runs_as_a_run_step_and_its_last_error_line_is_kept(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    script = Script("echo to-stdout\necho first-error >&2\necho '  ' >&2\nexit 3\n")
    result = run_work(script, env=env_for(tmp_path))
    assert (result.exit_code, result.signal, result.error_line) == (3, None, "first-error")
    out, err = capfd.readouterr()
    assert out == "to-stdout\n" and "first-error" in err
    assert list((tmp_path / "temp").iterdir()) == []  # the script file is removed


def test_the_default_shell_stops_on_errors_but_only_bash_has_pipefail(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    assert run_work(Script("false\necho not reached >&2\n"), env=env).exit_code == 1
    assert run_work(Script("false | true\n"), env=env).exit_code == 0
    assert run_work(Script("false | true\n", shell="bash"), env=env).exit_code == 1
    assert run_work(Script("false\n", shell="sh"), env=env).exit_code == 1


def test_python_and_custom_shells(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    py = Script("import sys, os\nopen('ran.txt', 'w').write(sys.argv[0])\nsys.exit(4)\n",
                shell="python")
    assert run_work(py, env=env).exit_code == 4
    assert (tmp_path / "ran.txt").read_text().endswith(".py")
    custom = Script("print('custom')\n", shell=f"{sys.executable} -u {{0}}")
    assert run_work(custom, env=env).exit_code == 0


@pytest.mark.parametrize("shell,message", [
    ("perl", "not a built-in"), ("bash -e", "'{0}'"), ("cmd", "Windows"),
    ("no-such-shell {0}", "not on the step's PATH")])
def test_a_bad_shell_is_refused_before_anything_runs(tmp_path: Path, shell: str,
                                                     message: str) -> None:
    with pytest.raises(WorkInputError, match=message) as caught:
        run_work(Script("touch ran\n", shell=shell), env=env_for(tmp_path))
    assert caught.value.fault.value == "bad_input"
    assert not (tmp_path / "ran").exists()


def test_working_directory_is_joined_to_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    run_work(Script("pwd > here.txt\n"), env=env_for(tmp_path), working_directory="pkg")
    assert (tmp_path / "pkg" / "here.txt").read_text().strip() == str(tmp_path / "pkg")
    with pytest.raises(WorkInputError, match="not a directory"):
        run_work(Script("true\n"), env=env_for(tmp_path), working_directory="missing")


def test_an_argv_runs_directly_with_the_step_environment(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    argv = [sys.executable, "-c",
            "import os; open(os.environ['COUNTER'], 'a').write('x\\n')"]
    env = env_for(tmp_path, COUNTER=str(counter))
    assert run_work(argv, env=env).exit_code == 0
    assert run_work(argv, env=env).exit_code == 0
    assert counter.read_text() == "x\nx\n"
    with pytest.raises(WorkInputError, match="not on the step's PATH"):
        run_work(["no-such-command-here"], env=env)


def test_the_kept_error_line_is_bounded_and_scrubbed(tmp_path: Path) -> None:
    token = "ghp_" + "A1b2" * 9
    script = Script(f"echo \"push failed for {token} and hunter2-secret\" >&2\nexit 1\n")
    result = run_work(script, env=env_for(tmp_path), secrets=["hunter2-secret"])
    assert result.error_line == "push failed for [redacted] and [redacted]"
    long = run_work(Script("printf '\\033[31m%0900d\\033[0m\\n' 7 >&2\nexit 2\n"),
                    env=env_for(tmp_path))
    assert long.error_line is not None and len(long.error_line) == 300
    assert "\x1b" not in long.error_line and long.error_line.startswith("0000")


RUNNER = textwrap.dedent("""
    import json, sys
    from ghattempt.work import Script, run_work
    result = run_work(Script(sys.argv[1]), kill_after=float(sys.argv[2]))
    print(json.dumps({"exit_code": result.exit_code, "signal": result.signal,
                      "error_line": result.error_line}), flush=True)
""")


def start_runner(tmp_path: Path, script: str, kill_after: float = 5.0) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", RUNNER, script, str(kill_after)],
                            env=env_for(tmp_path), cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_sigterm_sent_to_the_step_is_forwarded_to_the_work(tmp_path: Path) -> None:
    script = ("trap 'echo got-term > term.txt; echo cancelled >&2; exit 143' TERM\n"
              "echo x >> counter\ntouch ready\nwhile true; do sleep 0.05; done\n")
    proc = start_runner(tmp_path, script)
    wait_for(tmp_path / "ready")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    result = json.loads(out.splitlines()[-1])
    assert result == {"exit_code": 143, "signal": "SIGTERM", "error_line": "cancelled"}
    assert (tmp_path / "term.txt").read_text() == "got-term\n"
    assert (tmp_path / "counter").read_text() == "x\n"


def test_work_that_ignores_the_signal_is_killed_after_the_grace(tmp_path: Path) -> None:
    script = "trap '' TERM INT\necho $$ > pid\ntouch ready\nwhile true; do sleep 0.05; done\n"
    proc = start_runner(tmp_path, script, kill_after=0.5)
    wait_for(tmp_path / "ready")
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    result = json.loads(out.splitlines()[-1])
    assert (result["exit_code"], result["signal"]) == (128 + 9, "SIGINT")
    assert time.monotonic() - started < 10
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the work has ended when run_work returns


def test_output_streams_while_the_work_runs(tmp_path: Path) -> None:
    script = ("echo first\necho first-err >&2\n"
              "while [ ! -f go ]; do sleep 0.05; done\necho second\n")
    proc = start_runner(tmp_path, script)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == "first\n"
    assert proc.stderr.readline() == "first-err\n"
    assert proc.poll() is None  # still running: the lines came live
    (tmp_path / "go").touch()
    out, _ = proc.communicate(timeout=30)
    assert out.splitlines()[0] == "second"


def test_verify_exit_statuses_and_its_readback(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    present = run_verify(Script("echo 'release v1 has 2 assets'\n"), env=env,
                         stdout=open(os.devnull, "wb"))
    assert present.outcome == "present"
    content = b"release v1 has 2 assets\n"
    assert present.work.stdout == content
    assert present.work.stdout_bytes == len(content)
    assert present.work.stdout_digest == "sha256:" + hashlib.sha256(content).hexdigest()
    assert run_verify(Script("exit 1\n"), env=env).outcome == "absent"
    assert run_verify(Script("exit 2\n"), env=env).outcome == "neither"


def test_materials_are_collected_from_globs(tmp_path: Path) -> None:
    (tmp_path / "dist" / "sub").mkdir(parents=True)
    (tmp_path / "dist" / "a.tar.gz").write_bytes(b"tar")
    (tmp_path / "dist" / "sub" / "b.whl").write_bytes(b"wheel")
    (tmp_path / "notes.txt").write_bytes(b"n")
    found = collect_materials(["dist/*.tar.gz", "dist/sub", "dist/**/*.whl"], root=str(tmp_path))
    assert [(f.path, f.bytes) for f in found] == [("dist/a.tar.gz", 3), ("dist/sub/b.whl", 5)]
    assert found[0].digest == "sha256:" + hashlib.sha256(b"tar").hexdigest()
    with pytest.raises(WorkInputError, match="'dist/\\*.zip' matches no file"):
        collect_materials(["dist/*.tar.gz", "dist/*.zip"], root=str(tmp_path))
    with pytest.raises(WorkInputError, match="without '..'"):
        collect_materials(["../etc/*"], root=str(tmp_path))
    os.symlink(tmp_path / "notes.txt", tmp_path / "dist" / "link.txt")
    assert "dist/link.txt" in [f.path for f in collect_materials(["dist/*.txt"],
                                                                   root=str(tmp_path))]
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_bytes(b"not the workspace's")
    os.symlink(outside, tmp_path / "dist" / "escape.txt")
    with pytest.raises(WorkInputError, match="out of the workspace"):
        collect_materials(["dist/escape.txt"], root=str(tmp_path))


def test_observe_leaves_out_missing_files(tmp_path: Path) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "a").write_bytes(b"a")
    seen = observe(["dist/a", "dist/b", "../x"], root=str(tmp_path))
    assert [f.path for f in seen] == ["dist/a"]
