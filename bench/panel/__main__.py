import sys

from bench.panel import main

sys.exit(main())
