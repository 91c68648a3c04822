"""End-to-end test: FloatExplorer and ArithmeticExplorer in a real JupyterLab, driven by
headless Chromium.

The test starts a private JupyterLab server (everything it writes goes to a temporary
folder: HOME, Jupyter config/data/runtime dirs, workspaces, user settings, the notebook),
opens a generated notebook in Debian's Chromium through Playwright, runs it, and clicks the
widget like a person would. It fails (never skips) when Chromium or Playwright is missing.

Install what it needs with ``pip install "fpexplore[browser]"`` and ``.ci/install-browser``
(Debian's ``chromium`` package; no browser is ever downloaded by Playwright). Set
``FPEXPLORE_SCREENSHOT_DIR`` to keep a copy of the screenshot.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
HARD_TIMEOUT_S = 180.0  # the whole test, server start to shutdown
NOTEBOOK_CODE = 'from fpexplore.widgets import FloatExplorer\n\nFloatExplorer(1.0, "float16")'
ARITHMETIC_CODE = (
    "from fpexplore.widgets import ArithmeticExplorer\n\n"
    'ArithmeticExplorer("0.1", "0.2", "add", "bfloat16")'
)
# The Okabe-Ito colours of fpexplore.render.text.FIELD_COLORS (sign, exponent, mantissa).
BIT_SHOTS = {"sign-set": 0, "exponent-clear": 1, "exponent-set": 2, "mantissa-set": 15}
BIT_COLOURS = {
    "sign": (0xD5, 0x5E, 0x00),
    "exponent": (0x00, 0x72, 0xB2),
    "mantissa": (0, 0x9E, 0x73),
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _descendants(pid: int) -> list[int]:
    """Process ids below `pid` (Linux /proc), parents before children."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill_tree(proc: subprocess.Popen) -> None:
    """Kill the server's process group (server + kernels) and anything left below it."""
    doomed = _descendants(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    for pid in [proc.pid, *doomed]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=10)


def _write_notebook(path: Path) -> None:
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": cell_id,
            "metadata": {},
            "outputs": [],
            "source": source,
        }
        for cell_id, source in (("explorer", NOTEBOOK_CODE), ("arithmetic", ARITHMETIC_CODE))
    ]
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))


def _write_lab_settings(settings_dir: Path) -> None:
    """No autosave, no news, no update checks: nothing leaves the machine or the tmp dir."""
    settings = {
        "docmanager-extension/plugin": {"autosave": False},
        "notebook-extension/tracker": {"autoStartDefaultKernel": True},
        "apputils-extension/notification": {
            "fetchNews": "false",
            "checkForUpdates": False,
            "doNotDisturbMode": True,
        },
    }
    for name, values in settings.items():
        path = settings_dir / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


@contextmanager
def _jupyterlab(tmp: Path, deadline: float) -> Iterator[tuple[str, str]]:
    """Run JupyterLab on a free localhost port; yield (base_url, token); always kill it."""
    home, root = tmp / "home", tmp / "root"
    for folder in (home, root):
        folder.mkdir()
    _write_notebook(root / "explorer.ipynb")
    _write_lab_settings(tmp / "lab-settings")
    env = {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(tmp / "jupyter-config"),
        "JUPYTER_DATA_DIR": str(tmp / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "jupyter-runtime"),
        "IPYTHONDIR": str(tmp / "ipython"),
        "MPLCONFIGDIR": str(tmp / "mpl"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    port, token = _free_port(), os.urandom(16).hex()
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
        f"--LabApp.user_settings_dir={tmp / 'lab-settings'}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    log = (tmp / "jupyterlab.log").open("wb")
    proc = subprocess.Popen(
        cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    watchdog = threading.Timer(max(deadline - time.monotonic(), 1.0), _kill_everything, [proc])
    watchdog.daemon = True
    watchdog.start()
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited early:\n{_tail(tmp / 'jupyterlab.log')}")
            if time.monotonic() > deadline - 60:
                pytest.fail(f"JupyterLab did not start:\n{_tail(tmp / 'jupyterlab.log')}")
            try:
                _api(base, token, "GET", "/api/status")
                break
            except OSError:
                time.sleep(0.25)
        yield base, token
    finally:
        watchdog.cancel()
        _kill_tree(proc)
        log.close()


def _kill_everything(proc: subprocess.Popen) -> None:
    """Hard timeout: kill JupyterLab and every process this test started (Playwright,
    Chromium), so whatever the test is waiting on fails at once."""
    print(f"browser test ran past {HARD_TIMEOUT_S:.0f} s: killing it", file=sys.stderr)
    _kill_tree(proc)
    for pid in _descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _tail(path: Path, n: int = 4000) -> str:
    return path.read_text(errors="replace")[-n:]


def _api(base: str, token: str, method: str, path: str, xsrf: str | None = None) -> object:
    headers = {"Authorization": f"token {token}"}
    if xsrf:
        headers |= {"X-XSRFToken": xsrf, "Cookie": f"_xsrf={xsrf}"}
    request = urllib.request.Request(base + path, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body else None


def _shutdown_kernels(base: str, token: str, xsrf: str | None) -> None:
    for kernel in _api(base, token, "GET", "/api/kernels"):
        _api(base, token, "DELETE", f"/api/kernels/{kernel['id']}", xsrf)
    assert _api(base, token, "GET", "/api/kernels") == []


def _colour_fraction(png: Path, rgb: tuple[int, int, int], tolerance: int = 12) -> float:
    """Fraction of the screenshot's pixels within `tolerance` of the colour `rgb`."""
    import numpy as np
    from matplotlib.image import imread

    pixels = np.round(imread(png)[..., :3] * 255).astype(int)
    return float(np.mean(np.all(np.abs(pixels - np.array(rgb)) <= tolerance, axis=-1)))


def _require_browser_tools():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('Playwright is missing: pip install "fpexplore[browser]"')
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run .ci/install-browser (apt-get install chromium)")
    return sync_playwright


def test_float_explorer_in_jupyterlab(tmp_path: Path) -> None:
    sync_playwright = _require_browser_tools()
    started = time.monotonic()
    deadline = started + HARD_TIMEOUT_S

    def ms_left() -> float:  # keep 15 s for shutting everything down
        return max((deadline - time.monotonic()) * 1000 - 15_000, 1_000)

    shots = tmp_path / "screenshots"
    shots.mkdir()
    step = "starting JupyterLab"
    try:
        with _jupyterlab(tmp_path, deadline) as (base, token), sync_playwright() as pw:
            step = "launching Chromium"
            browser = pw.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS, timeout=ms_left()
            )
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(30_000)
            try:
                step = "opening the notebook"
                page.goto(f"{base}/lab/tree/explorer.ipynb?token={token}", timeout=ms_left())
                step = "waiting for the kernel to be idle"
                _wait_for_idle_kernel(page, ms_left)
                step = "running the notebook"
                _run_all_cells(page, ms_left)
                step = "clicking the widget"
                _check_explorer(page, ms_left)
                step = "using the arithmetic explorer"
                _check_arithmetic(page, ms_left)
                step = "taking screenshots"
                page.locator(".fpx-explorer").screenshot(
                    path=shots / "float-explorer.png", timeout=ms_left()
                )
                bits = page.locator(".fpx-explorer .fpx-bit-button")
                for name, i in BIT_SHOTS.items():
                    bits.nth(i).screenshot(path=shots / f"bit-{name}.png", timeout=ms_left())
                page.screenshot(path=shots / "jupyterlab.png", timeout=ms_left())
                step = "shutting the kernel down"
                cookies = page.context.cookies()
                xsrf = next((c["value"] for c in cookies if c["name"] == "_xsrf"), None)
                _shutdown_kernels(base, token, xsrf)
            except Exception:
                with suppress(Exception):
                    page.screenshot(path=shots / "failure.png", timeout=5_000)
                raise
            finally:
                with suppress(Exception):
                    browser.close()
    except Exception as exc:
        _keep_screenshots(shots)
        raise AssertionError(
            f"browser test failed while {step} after {time.monotonic() - started:.0f} s "
            f"(screenshots in {shots}):\n{exc}\n--- JupyterLab log ---\n"
            f"{_tail(tmp_path / 'jupyterlab.log')}"
        ) from exc
    _keep_screenshots(shots)
    # Look at the pictures: a set bit is filled with its field's colour, a clear one is not.
    for name, i in BIT_SHOTS.items():
        field = name.split("-")[0]
        fill = _colour_fraction(shots / f"bit-{name}.png", BIT_COLOURS[field])
        if name.endswith("-set"):
            assert fill > 0.5, f"bit {i} (a set {field} bit) is not filled ({fill:.0%}): {shots}"
        else:
            assert fill < 0.4, f"bit {i} (a clear {field} bit) is filled ({fill:.0%}): {shots}"
    print(f"browser test took {time.monotonic() - started:.1f} s; screenshots in {shots}")


def _wait_for_idle_kernel(page, ms_left) -> None:
    """Running cells before the kernel is ready opens a kernel-picker dialog instead."""
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=ms_left())
    page.wait_for_function(
        """() => {
            const context = window.jupyterapp.shell.currentWidget?.sessionContext;
            return context?.isReady && context.session?.kernel?.status === "idle";
        }""",
        timeout=ms_left(),
    )


def _run_all_cells(page, ms_left) -> None:
    """Run All, accepting the preferred kernel if JupyterLab still asks for one."""
    bits = page.locator(".fpx-explorer .fpx-bit-button")
    errors = page.locator(".jp-OutputArea-output[data-mime-type*='stderr']")
    dialog = page.locator(".jp-Dialog")
    for _attempt in range(3):
        # Fire and forget: page.evaluate has no timeout and the command's promise can hang.
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells') }")
        bits.or_(errors).or_(dialog).first.wait_for(timeout=ms_left())
        if not dialog.count():
            assert errors.count() == 0, f"the notebook failed:\n{errors.all_inner_texts()}"
            return
        dialog.locator(".jp-mod-accept").click()
        dialog.wait_for(state="detached", timeout=ms_left())
        _wait_for_idle_kernel(page, ms_left)
    raise AssertionError("JupyterLab kept asking for a kernel")


def _check_explorer(page, ms_left) -> None:
    """Click the rendered widget: 16 bits, sign bit -> -1.0, +1 ULP -> -0.99951171875."""
    from playwright.sync_api import expect

    def soon() -> float:  # a wait for one widget update
        return min(ms_left(), 30_000)

    explorer = page.locator(".fpx-explorer")
    bits, value = explorer.locator(".fpx-bit-button"), explorer.locator(".fpx-value")
    expect(bits).to_have_count(16, timeout=soon())
    expect(bits).to_have_text(list("0011110000000000"), timeout=soon())
    expect(value).to_have_text("1.0", timeout=soon())

    bits.nth(0).click()  # the sign bit
    expect(value).to_have_text("-1.0", timeout=soon())
    expect(bits.nth(0)).to_have_text("1", timeout=soon())

    explorer.locator(".fpx-next-up").click()
    expect(value).to_have_text("-0.99951171875", timeout=soon())  # -(1 - 2**-11)
    expect(bits).to_have_text(list("1011101111111111"), timeout=soon())


def _check_arithmetic(page, ms_left) -> None:
    """0.1 + 0.2 in bfloat16 lands on 0.30078125; switching to x gives 0.02001953125;
    a new second operand typed in recomputes."""
    from playwright.sync_api import expect

    def soon() -> float:
        return min(ms_left(), 30_000)

    panel = page.locator(".fpx-arithmetic-explorer")
    view = panel.locator(".fpx-arithmetic-view")
    expect(view).to_contain_text("= 0.30078125", timeout=soon())
    expect(view).to_contain_text("guard bit 1", timeout=soon())
    expect(panel.locator(".fpx-bit")).to_have_count(48, timeout=soon())  # a, b, result
    panel.locator("select").first.select_option(label="a x b")
    expect(view).to_contain_text("= 0.02001953125", timeout=soon())
    b_box = panel.locator("input[type='text']").nth(1)
    b_box.fill("4")
    b_box.press("Enter")
    expect(view).to_contain_text("= 0.400390625", timeout=soon())
    expect(view.locator("svg")).to_have_count(1, timeout=soon())


def _keep_screenshots(shots: Path) -> None:
    if target := os.environ.get("FPEXPLORE_SCREENSHOT_DIR"):
        Path(target).mkdir(parents=True, exist_ok=True)
        for png in shots.glob("*.png"):
            shutil.copy(png, target)
