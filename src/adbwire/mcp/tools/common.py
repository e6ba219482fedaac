"""Argument types shared by the tool families: each one validates before any device is touched."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from adbwire.device import validate

Serial = Annotated[str, AfterValidator(validate.serial), Field(max_length=validate.MAX_SERIAL)]
Package = Annotated[
    str, AfterValidator(validate.package_name), Field(max_length=validate.MAX_PACKAGE)
]
Permission = Annotated[
    str, AfterValidator(validate.permission_name), Field(max_length=validate.MAX_PACKAGE)
]
PropertyName = Annotated[
    str, AfterValidator(validate.property_name), Field(max_length=validate.MAX_PROPERTY_NAME)
]
DevicePath = Annotated[
    str, AfterValidator(validate.device_path), Field(max_length=validate.MAX_DEVICE_PATH)
]
Cursor = Annotated[str, Field(max_length=64)]


class Args(BaseModel):
    """Tool arguments: unknown keys are refused, so a typo is an error, not a no-op."""

    model_config = ConfigDict(extra="forbid")


class DeviceArgs(Args):
    serial: Serial | None = None


class Result(BaseModel):
    """Tool results."""


def on(serial: str | None) -> str:
    return f" on {serial}" if serial else ""
