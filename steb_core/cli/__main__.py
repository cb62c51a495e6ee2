"""``python -m steb_core.cli``: the same as the ``steb`` command."""

from .main import main

main()
