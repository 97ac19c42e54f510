"""A real salusd for the tests, started as Tests/SalusDaemonTests/DaemonHarness.swift starts it.

SALUS_BIN_DIR names the folder with salusd, salusctl, SleepDiary and the bundled plugins
(`make test` passes the debug build's folder). One daemon serves the whole session; each test
uses app ids of its own, registered by the owner with `salusctl apps add` and reached through
the socket `salusctl launch --app ID` hands a program.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

import pytest

import salus

PLUGINS = (
    "SalusCore SalusSleep SalusReproductive SalusMobility SalusVision SalusWheelchair SalusVitals "
    "SalusNutrition SalusHearing SalusSymptoms SalusLab SalusMindfulness SalusClinical"
).split()
REPOSITORY = Path(__file__).resolve().parents[3]


def bin_dir() -> Path:
    folder = os.environ.get("SALUS_BIN_DIR")
    if not folder:
        pytest.fail("SALUS_BIN_DIR is not set: point it at the folder with salusd, salusctl and the plugins (swift build --show-bin-path)")
    path = Path(folder)
    if not (path / "salusd").is_file():
        pytest.fail(f"SALUS_BIN_DIR={folder}: no salusd there; expected the folder `swift build --show-bin-path` prints")
    return path


def _can_connect(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
            return True
        except OSError:
            return False


class Daemon:
    """salusd in a temporary folder, with the bundled plugins linked into plugins/."""

    def __init__(self, arguments: tuple[str, ...] = ()) -> None:
        self.bin = bin_dir()
        self.folder = Path(tempfile.mkdtemp(prefix="salus-pytest-"))
        self.socket = self.folder / "app.sock"
        self.admin_socket = self.folder / "admin.sock"
        plugins = self.folder / "plugins"
        plugins.mkdir()
        for name in PLUGINS:
            (plugins / f"lib{name}.so").symlink_to(self.bin / f"lib{name}.so")
        (self.folder / "data").mkdir()
        self.log = self.folder / "salusd.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [
                    str(self.bin / "salusd"),
                    "--socket", str(self.socket),
                    "--admin-socket", str(self.admin_socket),
                    "--data-dir", str(self.folder / "data"),
                    "--plugins-dir", str(plugins),
                    *arguments,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
            )
        deadline = time.monotonic() + 20
        while not (_can_connect(self.socket) and _can_connect(self.admin_socket) and " ready" in self.output):
            if self.process.poll() is not None:
                raise RuntimeError(f"salusd exited with {self.process.returncode}; its output:\n{self.output}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"salusd did not accept connections within 20 s; its output:\n{self.output}")
            time.sleep(0.02)

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def ctl(self, *arguments: str, env: Optional[dict[str, str]] = None) -> str:
        """Runs salusctl with this daemon's admin socket and returns its standard output."""
        words = list(arguments)
        depth = _subcommand_depth(words)
        # --admin-socket right after the subcommand's names: before `--` and what it launches.
        command = [str(self.bin / "salusctl"), *words[:depth], "--admin-socket", str(self.admin_socket), *words[depth:]]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr}{result.stdout}")
        return result.stdout

    def register(self, app_id: str, policy: str = "grant-all", *policy_arguments: str) -> str:
        """Registers an app with a policy and returns the socket `salusctl launch` hands it."""
        self.ctl("apps", "add", app_id, "--name", app_id, "--read-usage", "Reads for tests", "--write-usage", "Writes for tests")
        self.ctl("apps", "policy", app_id, policy, *policy_arguments)
        printed = self.ctl("launch", "--app", app_id, "--", sys.executable, "-c", "import os; print(os.environ['SALUS_SOCKET'])")
        return printed.strip()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def remove(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _subcommand_depth(words: list[str]) -> int:
    # salusctl's nested commands: `apps add`, `apps policy`, `consent list`; `launch` stands alone.
    return 2 if words and words[0] in ("apps", "consent", "priority", "units", "me", "summary") else 1


@pytest.fixture(scope="session")
def daemon() -> Iterator[Daemon]:
    running = Daemon()
    yield running
    running.stop()
    running.remove()


_counter = iter(range(1, 1_000_000))


@pytest.fixture
def app(daemon: Daemon) -> str:
    """A fresh app id for this test."""
    return f"org.example.app{next(_counter)}"


@pytest.fixture
def socket_for(daemon: Daemon):  # type: ignore[no-untyped-def]
    return daemon.register


@pytest.fixture
async def store(daemon: Daemon, app: str) -> "salus.Store":
    path = daemon.register(app)
    async with salus.connect(path) as connected:
        yield connected
