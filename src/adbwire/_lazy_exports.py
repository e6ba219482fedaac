"""Package attributes imported when first used, so importing a package costs nothing
until one of its names is (the CLI's and the pytest plugin's start-up depend on it)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # nothing beyond sys at run time: `import adbwire` stays cheap (#20)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, home_of: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: `home_of` maps each exported name to the
    module that defines it; a name, once imported, is cached in the package's namespace."""

    def __getattr__(name: str) -> Any:
        home = home_of.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(home)
        value = getattr(sys.modules[home], name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(home_of))

    return __getattr__, __dir__
