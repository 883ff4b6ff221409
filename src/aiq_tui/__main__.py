from aiq_tui.cli import run

run()
