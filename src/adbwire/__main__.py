import sys

from adbwire.cli.main import main

sys.exit(main())
