"""Which UI toolkit drew the screen, judged from a parsed UI tree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers.ui_xml import UiElement

Framework = Literal["views", "compose", "flutter", "webview", "mixed", "unknown"]

_COMPOSE_HOSTS = (
    "androidx.compose.ui.platform.ComposeView",
    "androidx.compose.ui.platform.AndroidComposeView",
)
_WEBVIEW_CLASSES = ("android.webkit.WebView",)
# The classes Flutter's accessibility bridge gives its semantics nodes.
_FLUTTER_NODE_CLASSES = frozenset(
    {
        "android.view.View",
        "android.widget.Button",
        "android.widget.ImageView",
        "android.widget.EditText",
        "android.widget.CheckBox",
        "android.widget.RadioButton",
        "android.widget.Switch",
        "android.widget.ToggleButton",
        "android.widget.SeekBar",
        "android.widget.ScrollView",
        "android.widget.HorizontalScrollView",
        "android.widget.ProgressBar",
        "android.widget.TextView",
    }
)


@dataclass(frozen=True)
class FrameworkReport:
    """The verdict, the evidence for it, and whether Compose test tags reach the tree.

    ``compose_test_tags_exposed`` is ``None`` when there is no Compose content, ``False`` when
    no Compose node carries a resource-id (the app does not set ``testTagsAsResourceId``),
    ``True`` otherwise.
    """

    framework: Framework
    reasons: tuple[str, ...]
    compose_test_tags_exposed: bool | None


def detect_framework(elements: Sequence[UiElement]) -> FrameworkReport:
    """Judge the toolkit from class names and tree shape.

    Compose and WebView are recognised by their host classes, Flutter by a class naming
    ``io.flutter``/``FlutterView`` or, as its host reports itself as a plain ``FrameLayout``,
    by shape: a focusable FrameLayout with one ``android.view.View`` child of its own size
    and, below, only the generic classes Flutter's accessibility bridge emits and no
    ``pkg:id/name`` resource-ids. Content outside every host (and outside the hosts'
    ancestors, the window decor) is classic Views; more than one toolkit is ``mixed``.
    """
    tree = _Tree(elements)
    host_kind, owner, reasons = _claim_hosts(tree)
    decor = {ancestor.id for host_id in host_kind for ancestor in tree.ancestors(host_id)}
    views = [
        e
        for e in elements
        if e.id not in owner and e.id not in host_kind and e.id not in decor and _has_content(e)
    ]
    if views:
        reasons.append(f"{len(views)} classic View nodes with content outside any host")

    toolkits = [t for t in ("compose", "flutter", "webview") if t in host_kind.values()]
    if views:
        toolkits.append("views")
    framework: Framework = "unknown"
    if len(toolkits) > 1:
        framework = "mixed"
    elif toolkits:
        framework = _FRAMEWORKS[toolkits[0]]

    compose_nodes = [e for e in elements if owner.get(e.id) == "compose"]
    exposed: bool | None = None
    if compose_nodes:
        tagged = [e for e in compose_nodes if e.resource_id]
        exposed = bool(tagged)
        reasons.append(
            f"{len(tagged)} of {len(compose_nodes)} Compose nodes carry a resource-id"
            if tagged
            else "no Compose node carries a resource-id: test tags are not exposed "
            "(the app can set testTagsAsResourceId = true)"
        )
    if not reasons:
        reasons.append("no element with content")
    return FrameworkReport(framework, tuple(reasons), exposed)


class _Tree:
    """Parent/child lookups over a flat element list."""

    def __init__(self, elements: Sequence[UiElement]) -> None:
        self.elements = elements
        self.by_id = {element.id: element for element in elements}
        self.children: dict[str, list[UiElement]] = {}
        for element in elements:
            if element.parent_id is not None:
                self.children.setdefault(element.parent_id, []).append(element)

    def subtree(self, root: UiElement) -> list[UiElement]:
        found: list[UiElement] = []
        pending = list(self.children.get(root.id, []))
        while pending:
            node = pending.pop()
            found.append(node)
            pending.extend(self.children.get(node.id, []))
        return found

    def ancestors(self, element_id: str) -> list[UiElement]:
        found: list[UiElement] = []
        parent_id = self.by_id[element_id].parent_id
        while parent_id is not None and parent_id in self.by_id:
            found.append(self.by_id[parent_id])
            parent_id = self.by_id[parent_id].parent_id
        return found


def _claim_hosts(tree: _Tree) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Find toolkit hosts; map each host and each node below one to its toolkit."""
    host_kind: dict[str, str] = {}
    owner: dict[str, str] = {}  # the innermost host wins: hosts come in document order
    reasons: list[str] = []
    for element in tree.elements:
        if element.class_name in _COMPOSE_HOSTS:
            toolkit, why = "compose", f"Compose host {element.class_name}"
        elif element.class_name in _WEBVIEW_CLASSES:
            toolkit, why = "webview", "android.webkit.WebView"
        elif "io.flutter" in element.class_name or "FlutterView" in element.class_name:
            toolkit, why = "flutter", f"Flutter host {element.class_name}"
        elif _looks_like_flutter_host(element, tree):
            toolkit, why = "flutter", "focusable FrameLayout holding only Flutter-style nodes"
        else:
            continue
        host_kind[element.id] = toolkit
        nodes = tree.subtree(element)
        owner.update((node.id, toolkit) for node in nodes)
        reasons.append(f"{why} ({element.id}, {len(nodes)} nodes inside)")
    return host_kind, owner, reasons


_FRAMEWORKS: dict[str, Framework] = {
    "compose": "compose",
    "flutter": "flutter",
    "webview": "webview",
    "views": "views",
}


def _has_content(element: UiElement) -> bool:
    own_id = element.resource_id and not element.resource_id.startswith("android:id/")
    return bool(element.is_interactive or element.text or element.content_desc or own_id)


def _looks_like_flutter_host(element: UiElement, tree: _Tree) -> bool:
    # FlutterView is a FrameLayout; its accessibility bridge hangs one root semantics node
    # (an android.view.View as large as the host) under it, and below that only generic
    # classes. View-system resource-ids ("pkg:id/name") never appear in that subtree.
    if element.class_name != "android.widget.FrameLayout" or not element.focusable:
        return False
    kids = tree.children.get(element.id, [])
    if len(kids) != 1 or kids[0].class_name != "android.view.View":
        return False
    if kids[0].bounds != element.bounds:
        return False
    return all(
        node.class_name in _FLUTTER_NODE_CLASSES and ":id/" not in node.resource_id
        for node in tree.subtree(element)
    )
