"""An accessibility audit of the screen, with the fix in the words of the toolkit that drew it.

Checks (after Android's accessibility guidelines and Accessibility Scanner):

- ``unlabelled_clickable``: something that can be tapped with no text, description or hint,
  on itself or on the plain elements inside it: a screen reader announces nothing useful.
- ``small_touch_target``: a touch target under 48x48 dp, measured with the device's real
  density (``wm density``). A TouchDelegate can enlarge the area invisibly: check those.
- ``duplicate_label``: several different touch targets announced with the same label.
- ``unlabelled_image``: an image with no description outside any labelled touch target
  (fine when decorative, if it is marked so).

Each finding names the toolkit of its element (Views, Compose, Flutter, WebView, from the
host it sits in) and gives that toolkit's fix.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

from adbwire.device import commands
from adbwire.device.parsers import UiElement, UiHierarchy, parse_density
from adbwire.device.ui.compact import merged_labels
from adbwire.device.ui.snapshot import read_ui
from adbwire.errors import AdbwireError
from adbwire.wire.client import AdbClient

Kind = Literal["unlabelled_clickable", "small_touch_target", "duplicate_label", "unlabelled_image"]
Toolkit = Literal["views", "compose", "flutter", "webview"]
MIN_TARGET_DP = 48
_IMAGE_CLASSES = ("ImageView", "ImageButton", ".Image")

FIXES: dict[Kind, dict[Toolkit, str]] = {
    "unlabelled_clickable": {
        "views": "set android:contentDescription (or visible text)",
        "compose": 'Modifier.semantics { contentDescription = "..." } '
        '(Icon(contentDescription = "...") for icon buttons)',
        "flutter": 'wrap it in Semantics(label: "...") or give the button a tooltip',
        "webview": 'give the element visible text or aria-label="..."',
    },
    "small_touch_target": {
        "views": 'android:minWidth/minHeight="48dp" (or padding, or a TouchDelegate)',
        "compose": "Modifier.minimumInteractiveComponentSize() or sizeIn(minWidth = 48.dp, "
        "minHeight = 48.dp)",
        "flutter": "BoxConstraints(minWidth: 48, minHeight: 48); MaterialTapTargetSize.padded",
        "webview": "min-width/min-height: 48px, or more padding",
    },
    "duplicate_label": {
        "views": 'make each contentDescription name its object ("Delete note Groceries")',
        "compose": "make each semantics contentDescription name its object",
        "flutter": "make each Semantics label name its object",
        "webview": "make each aria-label name its object",
    },
    "unlabelled_image": {
        "views": "android:contentDescription, or "
        'android:importantForAccessibility="no" when decorative',
        "compose": 'Image(contentDescription = "..."), or null when decorative',
        "flutter": 'Image(semanticLabel: "..."), or excludeFromSemantics: true when decorative',
        "webview": 'alt="..." (alt="" when decorative)',
    },
}


@dataclass(frozen=True)
class Finding:
    kind: Kind
    element_ids: tuple[str, ...]
    message: str
    toolkit: Toolkit
    fix: str


@dataclass(frozen=True)
class AuditReport:
    findings: tuple[Finding, ...]
    checked: int
    """Touch targets looked at."""
    density: int | None
    min_target_px: int | None
    """48 dp in device pixels; None when the density is unknown (size check skipped)."""


def toolkit_of(hierarchy: UiHierarchy, element: UiElement, screen: str) -> Toolkit:
    """The toolkit that drew an element, from the host it sits in (else the screen's)."""
    for node in (element, *hierarchy.ancestors(element)):
        name = node.class_name
        if name.endswith(("ComposeView", "AndroidComposeView")):
            return "compose"
        if name == "android.webkit.WebView":
            return "webview"
        if "io.flutter" in name or "FlutterView" in name:
            return "flutter"
    return "flutter" if screen == "flutter" else "views"


def min_target_px(density: int) -> int:
    return math.ceil(MIN_TARGET_DP * density / 160)


def audit_hierarchy(
    hierarchy: UiHierarchy, *, density: int | None, framework: str = "views"
) -> AuditReport:
    """Run the checks over one tree (pure; ``framework`` is the screen's verdict)."""
    merged = merged_labels(hierarchy)
    findings: list[Finding] = []

    def add(kind: Kind, elements: list[UiElement], message: str) -> None:
        kit = toolkit_of(hierarchy, elements[0], framework)
        ids = tuple(e.id for e in elements)
        findings.append(Finding(kind, ids, message, kit, FIXES[kind][kit]))

    targets = [
        e
        for e in hierarchy.elements
        if (e.clickable or e.long_clickable or e.checkable) and not e.bounds.is_empty
    ]
    labels: dict[str, list[UiElement]] = defaultdict(list)
    limit = min_target_px(density) if density else None
    for element in targets:
        label = element.text or element.content_desc or element.hint or merged.get(element.id, "")
        if not label.strip():
            add("unlabelled_clickable", [element], f"{element.id} can be tapped but has no label")
        else:
            labels[label.strip().casefold()].append(element)
        small = limit is not None and min(element.bounds.width, element.bounds.height) < limit
        if small:
            b = element.bounds
            add(
                "small_touch_target",
                [element],
                f"{element.id} is {b.width}x{b.height} px, under {MIN_TARGET_DP} dp ({limit} px)",
            )
    for group in labels.values():
        if len(group) > 1:
            label = group[0].text or group[0].content_desc or merged.get(group[0].id, "")
            add("duplicate_label", group, f"{len(group)} targets are all labelled {label[:60]!r}")
    target_ids = {e.id for e in targets}
    for element in hierarchy.elements:
        if not element.class_name.endswith(_IMAGE_CLASSES) or element.content_desc:
            continue
        # An image that is, or sits in, a touch target is covered by the target's label.
        chain = [element, *hierarchy.ancestors(element)]
        if any(node.id in target_ids for node in chain) or element.bounds.is_empty:
            continue
        add("unlabelled_image", [element], f"{element.id} is an image with no description")
    return AuditReport(tuple(findings), len(targets), density, limit)


def read_density(client: AdbClient) -> int | None:
    try:
        return parse_density(commands.text(client, ["wm", "density"])).effective
    except AdbwireError:
        return None


def accessibility_audit(client: AdbClient) -> tuple[AuditReport, str]:
    """Audit what is on screen now; returns the report and the screen's toolkit verdict."""
    snapshot = read_ui(client)
    framework = snapshot.framework.framework
    report = audit_hierarchy(snapshot.hierarchy, density=read_density(client), framework=framework)
    return report, framework
