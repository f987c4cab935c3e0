from openclaw_memtui.cli.main import run

run()
