"""A misspelt pack task name gets its suggestion without lm-eval's index of its ~14,700 built-in
YAMLs (30-60 s on a busy machine), in-process through lm-eval's own CLI, with the index builder
watched: lm-eval's task folder must never be indexed."""

from __future__ import annotations

from pathlib import Path

import lm_eval
import pytest
from lm_eval._cli import HarnessCLI
from lm_eval.tasks._index import TaskIndex

from lm_eval_persian_culture.harness import install_into_lm_eval
from lm_eval_persian_culture.harness.discovery import misspelt_pack_names

BUILTIN_TASKS = Path(lm_eval.__file__).parent / "tasks"


@pytest.fixture
def indexed_folders(monkeypatch) -> list[Path]:
    """Every folder a TaskManager indexes, as it happens."""
    folders: list[Path] = []
    original = TaskIndex.build

    def build(paths, *args, **kwargs):
        folders.extend(Path(p).resolve() for p in paths)
        return original(paths, *args, **kwargs)

    monkeypatch.setattr(TaskIndex, "build", staticmethod(build))
    return folders


@pytest.mark.parametrize(
    ("names", "misspelt"),
    [
        (["taarof_expcted"], ["taarof_expcted"]),
        (["taarof_expected", "divan_binray"], ["divan_binray"]),
        (["taarof_expected"], []),  # all found
        (["taarof_expcted", "arc_easy"], []),  # arc_easy may be a built-in: lm-eval's index decides
        (["taarof_expcted", "arc_esy"], []),  # arc_esy is close to no pack task: the index decides
        (["taarof_*"], []),  # a pattern
    ],
)
def test_misspelt_pack_names(names, misspelt, indexed_folders) -> None:
    assert misspelt_pack_names(names) == misspelt
    assert BUILTIN_TASKS.resolve() not in indexed_folders


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--tasks", "taarof_expcted"],
        [
            "run",
            "--model",
            "hf",
            "--model_args",
            "pretrained=/nonexistent/model",
            "--tasks",
            "taarof_expcted,divan_binray",
        ],
    ],
)
def test_cli_answers_a_misspelt_pack_name_without_indexing_builtins(argv, indexed_folders, capsys, monkeypatch) -> None:
    install_into_lm_eval()
    monkeypatch.setattr("sys.argv", ["lm_eval", *argv])
    parser = HarnessCLI()
    with pytest.raises(SystemExit) as exit_info:
        parser.execute(parser.parse_args())
    assert exit_info.value.code == 2
    expected = "Tasks not found: taarof_expcted (did you mean taarof_expected?)"
    if argv[0] == "run":
        expected += ", divan_binray (did you mean divan_binary?)"
    assert capsys.readouterr().err.strip().splitlines()[-1] == expected
    assert indexed_folders and BUILTIN_TASKS.resolve() not in indexed_folders
