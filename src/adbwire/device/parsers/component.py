"""Android component names (``package/class``) as dumpsys prints them."""

from __future__ import annotations

import re
from dataclasses import dataclass

_COMPONENT = re.compile(r"^([A-Za-z][\w.]*)/([\w.$]+)$")
# "ActivityRecord{1f72345 u0 com.x/.Main t12}" -- the user field is absent before Android 4.2.
_ACTIVITY_RECORD = re.compile(r"ActivityRecord\{[0-9a-f]+ (?:u\d+ )?([A-Za-z][\w.]*/[\w.$]+)")


@dataclass(frozen=True)
class Component:
    """An activity (or other component) of a package; ``class_name`` is always fully qualified."""

    package: str
    class_name: str

    @property
    def flattened(self) -> str:
        """``package/full.ClassName``, the form ``am start -n`` accepts."""
        return f"{self.package}/{self.class_name}"

    @property
    def short(self) -> str:
        """``package/.ClassName`` when the class lives in the package, as Android prints it."""
        if self.class_name.startswith(self.package + "."):
            return f"{self.package}/{self.class_name[len(self.package) :]}"
        return self.flattened


def parse_component(text: str) -> Component | None:
    """Parse ``pkg/cls`` or ``pkg/.cls``; ``None`` when ``text`` is not a component name."""
    match = _COMPONENT.match(text.strip())
    if match is None:
        return None
    package, class_name = match.groups()
    if class_name.startswith("."):
        class_name = package + class_name
    return Component(package, class_name)


def component_in_activity_record(text: str) -> Component | None:
    """The component named by the first ``ActivityRecord{...}`` in ``text``, if any."""
    match = _ACTIVITY_RECORD.search(text)
    return parse_component(match.group(1)) if match else None
