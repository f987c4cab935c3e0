from openclaw_memtui.cli.main import main

raise SystemExit(main())
