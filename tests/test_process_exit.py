"""How the ``aiq-tui`` process ends: at once when the interpreter's shutdown has nothing left
to do (the output flushed, the exit code kept), as usual when something still has to run at
exit. Every test here runs a fresh interpreter: the quick end is ``os._exit``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from aiq_tui.locations import Home


def run_python(source: str, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(source)],
        capture_output=True,
        text=True,
        timeout=120,
        **options,
    )  # type: ignore[call-overload]


def test_output_still_buffered_is_written_and_the_code_kept() -> None:
    done = run_python("""
        import sys
        from aiq_tui.cli import end_process
        sys.stdout.write("to stdout")
        sys.stderr.write("to stderr")
        end_process(4)
    """)
    assert (done.returncode, done.stdout, done.stderr) == (4, "to stdout", "to stderr")


def test_an_atexit_handler_still_runs() -> None:
    done = run_python("""
        import atexit
        from aiq_tui.cli import end_process
        atexit.register(print, "cleaned up")
        end_process(3)
    """)
    assert (done.returncode, done.stdout) == (3, "cleaned up\n")


def test_a_running_thread_is_waited_for() -> None:
    done = run_python("""
        import threading
        from aiq_tui.cli import end_process
        release = threading.Event()
        worker = threading.Thread(target=lambda: (release.wait(), print("worker done")))
        worker.start()
        # Released only by the interpreter's own shutdown, before it joins the threads: a
        # process that skipped the shutdown would end without the line.
        threading._register_atexit(release.set)
        end_process(0)
    """)
    assert (done.returncode, done.stdout) == (0, "worker done\n")


def many_skills(root: Path, count: int) -> None:
    for index in range(count):
        folder = root / f"skill-{index:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{index:04d}\ndescription: Skill number {index}, "
            "with a description long enough to fill a pipe.\n---\n",
            encoding="utf-8",
        )


def test_a_listing_through_the_entry_point_is_whole(
    isolated_home: Home, tmp_path: Path
) -> None:
    many_skills(tmp_path / "skills", 300)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "aiq_tui",
            "--skills-dir",
            str(tmp_path / "skills"),
            "skills",
            "list",
            "--json",
        ],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    listed = {skill["name"] for skill in json.loads(done.stdout)["skills"]}
    assert {f"skill-{index:04d}" for index in range(300)} <= listed


def test_a_usage_error_keeps_exit_code_2(isolated_home: Home) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aiq_tui", "skills", "show", "no-such-skill"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "no-such-skill" in done.stderr


def test_a_reader_that_goes_away_is_no_error(
    isolated_home: Home, tmp_path: Path
) -> None:
    many_skills(tmp_path / "skills", 600)  # well over a pipe's buffer
    reader = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aiq_tui",
            "--skills-dir",
            str(tmp_path / "skills"),
            "skills",
            "list",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.read(20).startswith(b"{")
    reader.stdout.close()  # like `| head -c 20`
    assert reader.wait(timeout=120) == 0
    assert reader.stderr.read() == b""
