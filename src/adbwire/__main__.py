import sys

from adbwire.cli import main

sys.exit(main())
