"""The public surface of ghattempt.core and the layer's purity."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import ghattempt.core as core

CORE = Path(core.__file__).resolve().parent
IO_MODULES = {"_reader_main.py", "__main__.py"}  # the reader CLI: stdin, stdout, own bundle


def test_all_is_the_curated_namespace() -> None:
    assert len(set(core.__all__)) == len(core.__all__)
    assert set(core.__all__) == {
        "ATTEMPT_STATUSES", "FAILURE_CODES", "PHASES", "ActionsWriter", "AppWriter", "Attempt",
        "AttemptState", "AttemptStatus", "CliWriter", "Event", "Failure", "Generation",
        "Intent", "JournalInvalid", "JournalState", "Material", "PhaseState", "Record",
        "RecordValueError",
        "Verdict", "Writer", "blocks_fresh_attempt", "build_attempt", "build_event",
        "build_generation", "build_intent", "build_material", "canonical", "check_attempt",
        "check_event", "digest", "find_blocking", "find_history", "is_key", "is_oid",
        "is_digest", "is_reason", "key_from", "markers", "next_event",
        "parse_body", "read_journal", "record_block", "recovery_for", "render_body",
        "LEASE_HEADLINE", "NO_WITNESS", "Lease", "Witness", "build_lease", "lease_ref_name",
        "parse_lease", "scope_key", "READ_BACK_OUTCOMES", "ReadBack", "read_back",
        # the typed capture: parsed once, read, extended by a writer (docs/reader.md)
        "Capture", "parse_capture", "read_capture",
        # the run step's decision table and re-qualification (docs/run.md)
        "DECISION_KINDS", "LIVENESS", "OUTCOMES", "Decision", "RunNeeds", "RunRequest",
        "Write", "after_verify", "after_work", "decide", "describe_writer", "hand_commands",
        "run_needs", "VERIFY_OUTCOMES", "ObservedFile", "ReleaseAsset", "ReleaseCheck",
        "Requalification", "compare_release", "file_material", "material_id",
        "material_path", "readback_material", "requalify", "workspace_path_problem"}
    for name in core.__all__:
        assert getattr(core, name) is not None


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def test_core_imports_only_the_stdlib_and_itself() -> None:
    for path in CORE.glob("*.py"):
        for module, level in _imports(path):
            if level:
                continue  # relative: inside core
            assert module.split(".")[0] in sys.stdlib_module_names, (path.name, module)


def test_core_does_no_io_outside_the_reader_cli() -> None:
    banned_modules = {"os", "io", "socket", "subprocess", "pathlib", "shutil", "urllib",
                      "http", "tempfile", "sys"}
    for path in CORE.glob("*.py"):
        if path.name in IO_MODULES:
            continue
        for module, level in _imports(path):
            assert level or module.split(".")[0] not in banned_modules, (path.name, module)
        tree = ast.parse(path.read_text())
        calls = {n.func.id for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        # _value.py builds each value class's __init__ from its field names: one exec.
        allowed = {"exec"} if path.name == "_value.py" else set()
        assert not calls & ({"open", "print", "input", "exec", "eval"} - allowed), path.name


def test_the_only_exec_of_the_core_builds_an_init_from_field_names() -> None:
    tree = ast.parse((CORE / "_value.py").read_text())
    execs = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id == "exec"]
    assert len(execs) == 1
    function = next(n for n in ast.walk(tree)
                    if isinstance(n, ast.FunctionDef) and n.name == "_make_init")
    assert execs[0] in list(ast.walk(function))


def test_builders_load_lazily_and_resolve() -> None:
    assert core.build_event is core._build.build_event  # type: ignore[attr-defined]


def test_docs_show_the_transition_table_as_the_code_has_it() -> None:
    from ghattempt.core._rules import transition_table_markdown

    docs = (CORE.parents[1] / "docs" / "reader.md").read_text()
    assert transition_table_markdown() in docs


def _checker_literal(path: Path, name: str) -> tuple[str, ...]:
    """The values of ``name = Literal[...]`` inside ``if TYPE_CHECKING:`` of ``path``."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if (isinstance(stmt, ast.Assign) and ast.unparse(stmt.targets[0]) == name
                        and isinstance(stmt.value, ast.Subscript)):
                    elements = stmt.value.slice
                    assert isinstance(elements, ast.Tuple)
                    return tuple(ast.literal_eval(e) for e in elements.elts)
    raise AssertionError(f"no {name} = Literal[...] under TYPE_CHECKING in {path.name}")


def test_the_literal_types_name_exactly_the_run_time_tuples_in_order() -> None:
    import typing

    assert _checker_literal(CORE / "_codes.py", "Failure") == core.FAILURE_CODES
    assert _checker_literal(CORE / "_rules.py", "AttemptStatus") == core.ATTEMPT_STATUSES
    assert typing.get_args(core.Failure) == core.FAILURE_CODES
    assert typing.get_args(core.AttemptStatus) == core.ATTEMPT_STATUSES
    assert len(set(core.FAILURE_CODES)) == len(core.FAILURE_CODES) == 27
    from ghattempt.core._codes import Failure
    from ghattempt.core._rules import AttemptStatus
    assert (Failure, AttemptStatus) == (core.Failure, core.AttemptStatus)


def test_the_reader_imports_no_network_process_or_typing_module() -> None:
    """Reading a journal loads the core, ``json``, ``hashlib`` and ``re`` (with what they
    import): no module that could reach the network or start a process, and not
    ``typing``, ``dataclasses`` or ``inspect`` (docs/reader.md, "Speed": start-up)."""
    import subprocess

    probe = ("import sys; from ghattempt.core._reader_main import main; "
             "print(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-I", "-S", "-c",
                          f"import sys; sys.path.insert(0, {str(CORE.parent.parent)!r}); "
                          + probe], capture_output=True, text=True, check=True, timeout=60)
    loaded = set(out.stdout.split())
    assert {"json", "hashlib", "re", "ghattempt.core._journal"} <= loaded
    assert not loaded & {"socket", "ssl", "http", "urllib", "subprocess", "typing",
                         "dataclasses", "inspect", "ghattempt.core._build",
                         "ghattempt.core._readback", "ghattempt.core.testing"}, loaded
