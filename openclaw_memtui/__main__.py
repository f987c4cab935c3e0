from openclaw_memtui.cli import main

raise SystemExit(main())
