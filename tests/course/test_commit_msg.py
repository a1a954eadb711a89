""".ci/commit-msg, the commit-msg hook of .pre-commit-config.yaml: a subject of at most 72
characters (refused over), a body after a blank line (a warning without one); CONTRIBUTING §6."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / ".ci" / "commit-msg"


def check(tmp_path, message):
    """(exit code, stderr) of the hook on a message file holding ``message``."""
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    done = subprocess.run([sys.executable, str(HOOK), str(path)], capture_output=True,
                          text=True)
    return done.returncode, done.stderr


def test_a_subject_of_72_characters_and_a_body_pass(tmp_path):
    subject = "λ" + "x" * 71  # characters, not bytes
    assert check(tmp_path, f"{subject}\n\nWhy it changed.\n") == (0, "")


def test_a_subject_over_72_characters_is_refused(tmp_path):
    subject = "x" * 73
    code, stderr = check(tmp_path, f"{subject}\n\nWhy it changed.\n")
    assert code == 1
    assert "the subject has 73 characters, over 72" in stderr and subject in stderr


def test_the_subject_is_the_first_paragraph(tmp_path):
    """git log joins the lines of the first paragraph into the subject."""
    code, stderr = check(tmp_path, "x" * 40 + "\n" + "y" * 40 + "\n\nWhy.\n")
    assert code == 1 and "81 characters" in stderr


def test_a_message_without_a_body_passes_with_a_warning(tmp_path):
    code, stderr = check(tmp_path, "A short subject\n")
    assert code == 0 and "warning: no body" in stderr


def test_what_git_drops_is_not_checked(tmp_path):
    """Comment lines and, under `git commit -v`, everything below the scissors line."""
    message = ("# " + "c" * 80 + "\n\nA short subject\n\nWhy.\n# Please enter the message\n"
               "# ------------------------ >8 ------------------------\n" + "d" * 100 + "\n")
    assert check(tmp_path, message) == (0, "")


def test_pre_commit_runs_it_at_the_commit_msg_stage():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert "commit-msg" in config["default_install_hook_types"]
    hooks = [h for repo in config["repos"] for h in repo["hooks"] if h["entry"] == ".ci/commit-msg"]
    assert len(hooks) == 1 and hooks[0]["stages"] == ["commit-msg"]
    assert hooks[0]["language"] == "script" and HOOK.stat().st_mode & 0o111  # run as a script
