"""What policy files (and Policy objects) are accepted, what they mean, and what is refused
with a message: #26 item 5 (minimal files, allow_destructive, the transfer cap, device
paths) and the output caps of #14 item 1. docs/policy.md is the reference."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.mcp.registry import all_specs
from adbwire.mcp.safety.policy import (
    DEFAULT_OUTPUT_CAPS,
    MAX_OUTPUT_CAP,
    MIB,
    OTHER_TOOLS,
    PROFILES,
    Policy,
    Risk,
    load_policy_file,
    policy_from_mapping,
    resolve_local_root,
    with_flags,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "policy.md"


def load(tmp_path: Path, text: str) -> Policy:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return load_policy_file(path)


def refused(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(UsageError, match=match):
        load(tmp_path, text)


# ------------------------------------------------------------------ defaults


def test_the_defaults() -> None:
    policy = Policy()
    assert policy.profile == "standard"
    assert policy.allow_tools == frozenset() and policy.deny_tools == frozenset()
    assert policy.allow_destructive is False
    assert policy.confirm_timeout == 120.0
    assert policy.allowed_devices == frozenset() and policy.emulators_only is False
    assert policy.local_root is None
    assert policy.device_paths == ("/sdcard", "/storage", "/data/local/tmp")
    assert policy.max_transfer_bytes == 100 * 1024 * 1024
    assert policy.sources == ()
    assert [risk.value for risk in Risk] == ["read", "action", "destructive"]
    assert {
        "read-only": {Risk.READ},
        "standard": {Risk.READ, Risk.ACTION},
        "full": {Risk.READ, Risk.ACTION, Risk.DESTRUCTIVE},
    } == PROFILES


@pytest.mark.parametrize("text", ["", "# nothing\n", "[devices]\n[files]\n[max_output_mb]\n"])
def test_an_empty_file_is_the_default_policy(tmp_path: Path, text: str) -> None:
    policy = load(tmp_path, text)
    assert policy == Policy()
    assert policy.sources == (str(tmp_path / "policy.toml"),)


@pytest.mark.parametrize(
    "text",
    [
        'profile = "read-only"\n',
        'deny_tools = ["reboot"]\n',
        "allow_destructive = false\n",
        '[devices]\nallow = ["emulator-5554"]\n',
        '[files]\ndevice_paths = ["/sdcard"]\n',
        "[files]\nmax_transfer_mb = 5\n",
    ],
)
def test_each_key_alone_is_enough(tmp_path: Path, text: str) -> None:
    """No list key, table or max_transfer_mb is required: the rest keeps its default."""
    policy = load(tmp_path, text)
    changed = {
        field.name
        for field in dataclasses.fields(Policy)
        if field.compare and getattr(policy, field.name) != getattr(Policy(), field.name)
    }
    assert len(changed) <= 1
    assert policy.max_transfer_bytes in {100 * MIB, 5 * MIB}
    assert policy.device_paths in {Policy().device_paths, ("/sdcard",)}


def test_allow_destructive_true_is_accepted(tmp_path: Path) -> None:
    policy = load(tmp_path, "allow_destructive = true\n")
    assert policy.allow_destructive is True
    assert policy.profile == "standard", "the file's profile is not changed by it"


def test_policy_objects_are_immutable() -> None:
    policy = Policy()
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.profile = "full"  # type: ignore[misc]
    assert hash(policy) == hash(Policy())


# ------------------------------------------------------------------ transfer cap


@pytest.mark.parametrize("megabytes", [0, -1])
def test_a_transfer_cap_below_one_mib_is_refused(tmp_path: Path, megabytes: int) -> None:
    refused(tmp_path, f"[files]\nmax_transfer_mb = {megabytes}\n", "transfer size cap")
    with pytest.raises(UsageError, match="transfer size cap"):
        Policy(max_transfer_bytes=megabytes)


@pytest.mark.parametrize("value", ["1.5", "true", '"5"'])
def test_a_transfer_cap_must_be_an_integer(tmp_path: Path, value: str) -> None:
    refused(tmp_path, f"[files]\nmax_transfer_mb = {value}\n", "max_transfer_mb must be an int")


def test_the_smallest_transfer_cap(tmp_path: Path) -> None:
    assert load(tmp_path, "[files]\nmax_transfer_mb = 1\n").max_transfer_bytes == MIB
    assert Policy(max_transfer_bytes=1).max_transfer_bytes == 1


# ------------------------------------------------------------------ device paths


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("//sdcard/", "/sdcard"),
        ("/sdcard/./Download/", "/sdcard/Download"),
        ("/data//local/tmp", "/data/local/tmp"),
        ("/storage", "/storage"),
    ],
)
def test_device_paths_in_a_file_are_normalised(tmp_path: Path, written: str, meant: str) -> None:
    policy = load(tmp_path, f'[files]\ndevice_paths = ["{written}"]\n')
    assert policy.device_paths == (meant,)


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("/sdcard/../data", r"'\.\.' is not allowed"),
        ("sdcard", "absolute path"),
        ("./sdcard", "absolute path"),
        ("", "absolute path"),
        ("/sdcard\\n", "absolute path"),
        ("/" + "a" * 1024, "absolute path"),
    ],
)
def test_device_paths_that_escape_or_are_relative_are_refused(
    tmp_path: Path, written: str, why: str
) -> None:
    refused(tmp_path, f'[files]\ndevice_paths = ["{written}"]\n', why)


@pytest.mark.parametrize("path", ["//sdcard", "/sdcard/", "/sdcard/./x", "/sdcard/../data"])
def test_a_policy_object_must_hold_normalised_paths(path: str) -> None:
    with pytest.raises(UsageError, match="device path"):
        Policy(device_paths=(path,))


def test_device_paths_must_be_a_list_of_strings(tmp_path: Path) -> None:
    refused(tmp_path, '[files]\ndevice_paths = "/sdcard"\n', "files.device_paths must be a list")
    refused(tmp_path, "[files]\ndevice_paths = [1]\n", "files.device_paths must be a list")


# ------------------------------------------------------------------ other keys


def test_a_full_file_round_trips(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    policy = load(
        tmp_path,
        'profile = "full"\nallow_tools = ["run_shell"]\ndeny_tools = ["reboot"]\n'
        "allow_destructive = true\nconfirm_timeout_seconds = 3600\n"
        '[devices]\nallow = ["emulator-5554", "10.0.0.2:5555"]\nemulators_only = true\n'
        f'[files]\nlocal_root = "{root}"\ndevice_paths = ["/sdcard", "/data/local/tmp"]\n'
        "max_transfer_mb = 7\n"
        "[max_output_mb]\ndefault = 2\nui_tree = 32\n",
    )
    assert policy == Policy(
        profile="full",
        allow_tools=frozenset({"run_shell"}),
        deny_tools=frozenset({"reboot"}),
        allow_destructive=True,
        confirm_timeout=3600.0,
        allowed_devices=frozenset({"emulator-5554", "10.0.0.2:5555"}),
        emulators_only=True,
        local_root=root.resolve(),
        device_paths=("/sdcard", "/data/local/tmp"),
        max_transfer_bytes=7 * MIB,
        output_caps={OTHER_TOOLS: 2 * MIB, "ui_tree": 32 * MIB},
    )


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("profil = 1\nzz = 2\n", "unknown policy key\\(s\\) profil, zz"),
        ("[devices]\nalow = []\n", r"\[devices\]: unknown policy key\(s\) alow"),
        ("[files]\nroot = 1\n", r"\[files\]: unknown policy key\(s\) root"),
        ("devices = 1\n", r"\[devices\] must be a table"),
        ('profile = "everything"\n', "unknown profile 'everything'; use read-only, standard"),
        ("profile = 1\n", "profile has the wrong type"),
        ("allow_destructive = 1\n", "allow_destructive has the wrong type"),
        ('allow_destructive = "yes"\n', "allow_destructive has the wrong type"),
        ("confirm_timeout_seconds = true\n", "confirm_timeout_seconds has the wrong type"),
        ("confirm_timeout_seconds = 0\n", "confirm timeout"),
        ("confirm_timeout_seconds = 3600.5\n", "confirm timeout"),
        ('confirm_timeout_seconds = "9"\n', "confirm_timeout_seconds has the wrong type"),
        ("[devices]\nemulators_only = 1\n", "emulators_only has the wrong type"),
        ("[devices]\nallow = 5\n", "devices.allow must be a list of strings"),
        ('[devices]\nallow = ["-s"]\n', "invalid serial"),
        ('allow_tools = "run_shell"\n', "allow_tools must be a list of strings"),
        ("deny_tools = [1]\n", "deny_tools must be a list of strings"),
        ('[files]\nlocal_root = "/no/such/dir"\n', "not an existing directory"),
        ("not toml", "not valid TOML"),
    ],
)
def test_bad_files_are_refused_with_a_message(tmp_path: Path, text: str, match: str) -> None:
    refused(tmp_path, text, match)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read policy file"):
        load_policy_file(tmp_path / "absent.toml")


def test_an_integer_timeout_becomes_seconds(tmp_path: Path) -> None:
    policy = load(tmp_path, "confirm_timeout_seconds = 30\n")
    assert policy.confirm_timeout == 30.0 and isinstance(policy.confirm_timeout, float)
    assert load(tmp_path, "confirm_timeout_seconds = 0.5\n").confirm_timeout == 0.5


def test_a_local_root_must_be_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(UsageError, match="not an existing directory"):
        resolve_local_root(file)
    assert resolve_local_root(tmp_path / "." / "") == tmp_path.resolve()


# ------------------------------------------------------------------ tool states and flags


def test_tool_state_says_why() -> None:
    policy = Policy(
        profile="read-only",
        allow_tools=frozenset({"reboot", "both"}),
        deny_tools=frozenset({"device_info", "both"}),
    )
    assert policy.tool_state("device_info", Risk.READ) == (False, "denied by name")
    assert policy.tool_state("both", Risk.READ) == (False, "denied by name")
    assert policy.tool_state("reboot", Risk.DESTRUCTIVE) == (True, "allowed by name")
    assert policy.tool_state("battery_status", Risk.READ) == (True, "profile read-only")
    assert policy.tool_state("launch_app", Risk.ACTION) == (
        False,
        "profile read-only leaves out action tools",
    )


def test_flags_add_and_never_weaken(tmp_path: Path) -> None:
    filed = Policy(
        profile="read-only",
        allow_destructive=True,
        allowed_devices=frozenset({"a"}),
        emulators_only=True,
        sources=("p.toml",),
    )
    merged = with_flags(filed, allow_destructive=False, allow_devices=["b"])
    assert merged.profile == "read-only", "--allow-destructive alone keeps a file's profile"
    assert merged.allow_destructive is True
    assert merged.allowed_devices == {"a", "b"}
    assert merged.emulators_only is True
    assert merged.sources == ("p.toml", "command line")
    assert with_flags(filed, allow_destructive=True).profile == "read-only"
    plain = with_flags(Policy())
    assert (plain.profile, plain.allow_destructive, plain.emulators_only) == (
        "standard",
        False,
        False,
    )
    assert with_flags(Policy(), emulators_only=True).emulators_only is True
    assert with_flags(Policy(), allow_destructive=True).allow_destructive is True
    assert with_flags(Policy(), profile="read-only", allow_destructive=True).profile == (
        "read-only"
    )
    rooted = with_flags(Policy(), local_root=tmp_path)
    assert rooted.local_root == tmp_path.resolve()
    assert with_flags(rooted).local_root == tmp_path.resolve(), "kept without the flag"


# ------------------------------------------------------------------ output caps


def documented_caps() -> dict[str, int]:
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("<!-- output caps:", 1)[1].split("<!-- end of output caps -->", 1)[0]
    return {
        name: int(mib) * MIB for name, mib in re.findall(r"^\| `(\w+)` \| (\d+) \|$", table, re.M)
    }


def test_the_built_in_caps_are_the_documented_ones() -> None:
    assert documented_caps() == dict(DEFAULT_OUTPUT_CAPS)
    names = {spec.name for spec in all_specs()}
    assert set(DEFAULT_OUTPUT_CAPS) - {OTHER_TOOLS} <= names, "every entry names a real tool"


def test_which_cap_a_tool_gets() -> None:
    assert Policy().output_cap("get_property") == MIB
    assert Policy().output_cap("ui_tree") == 16 * MIB
    assert Policy().output_cap("run_shell") == 4 * MIB, "no entry: the built-in default"
    policy = Policy(output_caps={"get_property": 3, OTHER_TOOLS: 5})
    assert policy.output_cap("get_property") == 3, "the operator's entry first"
    assert policy.output_cap("ui_tree") == 16 * MIB, "then the built-in entry"
    assert policy.output_cap("run_shell") == 5, "then the operator's default"


def test_output_caps_from_a_file_are_mib(tmp_path: Path) -> None:
    policy = load(tmp_path, "[max_output_mb]\nget_property = 1\nui_tree = 1024\ndefault = 3\n")
    assert dict(policy.output_caps) == {
        "get_property": MIB,
        "ui_tree": 1024 * MIB,
        OTHER_TOOLS: 3 * MIB,
    }
    assert policy.output_cap("list_dir") == 8 * MIB
    assert policy.output_cap("stat_path") == 3 * MIB


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("ui_tree = 0", r"max_output_mb\.ui_tree = 0: use 1 to 1024 \(MiB\)"),
        ("ui_tree = -4", "use 1 to 1024"),
        ("default = 1025", "use 1 to 1024"),
        ("ui_tree = 1_000_000", "use 1 to 1024"),
        ("ui_tree = 1.5", r"max_output_mb\.ui_tree must be an integer \(MiB\)"),
        ("ui_tree = true", "must be an integer"),
        ('ui_tree = "8"', "must be an integer"),
        ("ui_treee = 8", r"\[max_output_mb\] names unknown tool\(s\) ui_treee"),
        ("zz = 1\naa = 1", r"unknown tool\(s\) aa, zz"),
    ],
)
def test_bad_output_caps_are_refused(tmp_path: Path, line: str, match: str) -> None:
    refused(tmp_path, f"[max_output_mb]\n{line}\n", match)


def test_max_output_mb_must_be_a_table(tmp_path: Path) -> None:
    refused(tmp_path, "max_output_mb = 8\n", r"\[max_output_mb\] must be a table")


@pytest.mark.parametrize("cap", [0, -1, MAX_OUTPUT_CAP + 1, True, 1.5])
def test_a_policy_object_refuses_bad_caps(cap: object) -> None:
    with pytest.raises(UsageError, match="output cap of ui_tree must be 1 byte to 1024 MiB"):
        Policy(output_caps={"ui_tree": cap})  # type: ignore[dict-item]


def test_a_policy_keeps_its_own_copy_of_the_caps() -> None:
    given = {"ui_tree": MAX_OUTPUT_CAP}
    policy = Policy(output_caps=given)
    given["ui_tree"] = 1
    assert policy.output_cap("ui_tree") == MAX_OUTPUT_CAP
    with pytest.raises(TypeError):
        policy.output_caps["ui_tree"] = 1  # type: ignore[index]


def test_the_mapping_form_names_its_source() -> None:
    with pytest.raises(UsageError, match=r"^inline: unknown policy key"):
        policy_from_mapping({"x": 1}, source="inline")
    assert policy_from_mapping({}, source="inline").sources == ("inline",)
