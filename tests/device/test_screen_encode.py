"""Fitting an image to a budget: PNG while it fits, then lossy, then smaller; never over."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from adbwire.device.screen.encode import Budget, fit
from adbwire.errors import UsageError


def noise(width: int, height: int, seed: int = 7) -> Image.Image:
    """A photo-like worst case: random pixels do not compress."""
    generator = random.Random(seed)
    return Image.frombytes("RGB", (width, height), generator.randbytes(width * height * 3))


def flat(width: int, height: int) -> Image.Image:
    return Image.new("RGB", (width, height), (240, 240, 245))


def test_a_flat_screen_stays_png_and_is_only_halved() -> None:
    encoded = fit(flat(1080, 2400), Budget())
    assert encoded.format == "png" and encoded.quality is None
    assert (encoded.width, encoded.height) == (540, 1200)  # 1280 / 2 keeps 94 % of the edge
    assert encoded.data.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("max_edge", "size"),
    [
        (1280, (540, 1200)),  # halved: within KEEP of the edge
        (800, (360, 800)),  # a third: exactly the edge
        (1100, (495, 1100)),  # a third would leave 800 of 1100: halved, then resampled
        (2400, (1080, 2400)),  # as it is
        (4000, (1080, 2400)),  # never enlarged
    ],
)
def test_whole_factors_first_resampling_only_for_the_rest(
    max_edge: int, size: tuple[int, int]
) -> None:
    encoded = fit(flat(1080, 2400), Budget(max_edge=max_edge))
    assert (encoded.width, encoded.height) == size


def test_small_images_are_never_enlarged() -> None:
    encoded = fit(flat(200, 100), Budget())
    assert (encoded.width, encoded.height) == (200, 100)


def test_auto_switches_to_jpeg_when_png_is_too_big() -> None:
    encoded = fit(noise(400, 400), Budget(max_bytes=200_000))
    assert encoded.format == "jpeg" and len(encoded.data) <= 200_000
    assert (encoded.width, encoded.height) == (400, 400)  # quality gave way before size


@pytest.mark.parametrize("kind", ["auto", "png", "jpeg", "webp"])
def test_scaling_down_when_quality_is_not_enough(kind: str) -> None:
    budget = Budget(max_edge=1280, max_bytes=30_000, format=kind)  # type: ignore[arg-type]
    encoded = fit(noise(800, 600), budget)
    assert len(encoded.data) <= 30_000
    assert encoded.width < 800 and encoded.width / encoded.height == pytest.approx(4 / 3, 0.02)
    decoded = Image.open(io.BytesIO(encoded.data))
    assert decoded.size == (encoded.width, encoded.height)
    if kind != "auto":
        assert encoded.format == kind
    assert encoded.mime_type == f"image/{encoded.format}"


def test_an_impossible_budget_is_refused_clearly() -> None:
    with pytest.raises(UsageError, match="cannot be made to fit"):
        fit(noise(64, 64), Budget(max_bytes=10_000, format="png"))  # 12 KB of pure noise


@pytest.mark.parametrize(
    "arguments",
    [{"max_edge": 10}, {"max_edge": 9000}, {"max_bytes": 5}, {"format": "gif"}],
)
def test_budget_limits(arguments: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        Budget(**arguments)  # type: ignore[arg-type]
