"""CI's own script, .ci/run: it installs what a fresh machine lacks and
does no needless work where it is already there."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LISTS = "/var/lib/apt/lists/"


def _lists_check() -> str:
    """.ci/run's line that updates apt's package lists when there are none."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    (line,) = [ln for ln in lines if LISTS in ln and "apt-get update" in ln]
    return line.strip()


@pytest.mark.parametrize(
    "files, updated",
    [
        ([], True),
        (["deb.debian.org_debian_dists_bookworm_InRelease"], True),
        (["deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages"], False),
        # Debian's images keep the lists compressed (apt's KeepCompressed)
        (["deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4"], False),
        (["archive.ubuntu.com_ubuntu_dists_noble_main_binary-amd64_Packages.gz"], False),
    ],
)
def test_apt_lists_are_updated_only_when_there_are_none(tmp_path, files, updated):
    for name in files:
        (tmp_path / name).write_bytes(b"")
    line = _lists_check().replace(LISTS, f"{tmp_path}/")
    line = line.replace("apt-get update -qq", "echo update")
    p = subprocess.run(["bash", "-c", line], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (p.stdout.strip() == "update") == updated, (files, p.stdout)
