from aiq_tui.cli import main

raise SystemExit(main())
