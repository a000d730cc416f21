import sys

from metricore.cli.commands import main

sys.exit(main())
