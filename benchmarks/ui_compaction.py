"""How much smaller the UI tree and the screenshots get before they reach an agent.

1. For each real ``uiautomator dump`` in ``../shared/device_outputs/uiautomator_dump/`` and
   each screen of the simulated device: raw XML bytes against the compact interactive-only
   text form (target: at most 15 %), and whether every interactive element is still there.
2. Screenshots at the default budget (long edge <= 1280 px, <= 800 KB) against the raw PNG
   ``screencap -p`` gives: the simulator's screens (captured over the wire) and the real
   screenshot in ``../shared/device_outputs/screencap_png/``.

Run: ``python benchmarks/ui_compaction.py`` (exits 1 if a dump misses the target).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image

from adbwire.device.parsers import parse_ui_xml
from adbwire.device.screen import Budget, fit, take_screenshot
from adbwire.device.ui import compact_tree
from adbwire.testing import DeviceFiles, DeviceOptions, running_device
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import Userland
from adbwire.wire.client import AdbClient

SHARED = Path(__file__).resolve().parents[2] / "shared" / "device_outputs"
TARGET = 0.15


def tree_row(name: str, raw: bytes) -> tuple[str, bool]:
    tree = parse_ui_xml(raw)
    text = compact_tree(tree)
    listed = {line.split(" ", 1)[0] for line in text.splitlines()}
    interactive = [e.id for e in tree.elements if e.is_interactive]
    lost = [element_id for element_id in interactive if element_id not in listed]
    ratio = len(text.encode()) / len(raw)
    ok = ratio <= TARGET and not lost
    row = (
        f"{name:<44} {len(raw):>8} {len(text.encode()):>8} {ratio:>7.1%} "
        f"{len(tree.elements):>6} {len(interactive):>6} {len(lost):>5}  {'ok' if ok else 'MISS'}"
    )
    return row, ok


def tree_table(scenario_screens: dict[str, bytes]) -> bool:
    print("UI tree: raw XML vs compact interactive-only form (target <= 15 %, nothing lost)")
    heading = ("dump", "raw B", "compact", "ratio", "nodes", "inter", "lost")
    print("{:<44} {:>8} {:>8} {:>7} {:>6} {:>6} {:>5}".format(*heading))
    all_ok = True
    real = sorted((SHARED / "uiautomator_dump").glob("*.xml"))
    if not real:
        print(f"  (no real dumps: {SHARED / 'uiautomator_dump'} is absent)")
    for path in real:
        row, ok = tree_row(f"real/{path.name}", path.read_bytes())
        print(row)
        all_ok &= ok
    for screen, xml in scenario_screens.items():
        row, ok = tree_row(f"simulator/{screen}", xml)
        print(row)
        all_ok &= ok
    return all_ok


def shot_row(name: str, png: bytes, shot_bytes: int, size: tuple[int, int], kind: str) -> str:
    source = Image.open(io.BytesIO(png)).size
    return (
        f"{name:<44} {source[0]:>5}x{source[1]:<5} {len(png):>9} "
        f"{size[0]:>5}x{size[1]:<5} {shot_bytes:>9} {shot_bytes / len(png):>7.1%} {kind}"
    )


def screenshot_table(userland_holder: list[Userland], client: AdbClient) -> None:
    print()
    print("Screenshots at the default budget (long edge <= 1280 px, <= 800 KB) vs raw PNG")
    heading = ("screen", "raw size", "raw PNG B", "sent size", "sent B", "ratio")
    print("{:<44} {:>11} {:>9} {:>11} {:>9} {:>7}".format(*heading))
    state = userland_holder[0].device.state
    for screen in state.scenario.screens:
        with state.lock:
            state.nav.show(screen)
        png = client.exec_out("screencap -p")
        shot = take_screenshot(client)
        if shot.image is None:
            print(f"{'simulator/' + screen:<44} (secure window: reported, no image)")
            continue
        image = shot.image
        print(
            shot_row(
                f"simulator/{screen}",
                png,
                len(image.data),
                (image.width, image.height),
                image.format,
            )
        )
    for path in sorted((SHARED / "screencap_png").glob("*.png")):
        png = path.read_bytes()
        encoded = fit(Image.open(io.BytesIO(png)).convert("RGB"), Budget())
        print(
            shot_row(
                f"real/{path.name}",
                png,
                len(encoded.data),
                (encoded.width, encoded.height),
                encoded.format,
            )
        )


def main() -> int:
    holder: list[Userland] = []

    def factory(files: DeviceFiles) -> Userland:
        holder.append(Userland(load_scenario(), files))
        return holder[0]

    scenario = load_scenario()
    screens = {screen_id: spec.hierarchy.encode() for screen_id, spec in scenario.screens.items()}
    ok = tree_table(screens)
    with (
        running_device(DeviceOptions(auth_required=False), factory) as device,
        AdbClient.connect_tcp(device.serial, []) as client,
    ):
        screenshot_table(holder, client)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
