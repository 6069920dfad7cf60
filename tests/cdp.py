"""A small client of the Chrome DevTools protocol for the browser tests: starts headless Debian
``chromium`` with a fresh profile, opens a page, evaluates script, collects console errors and
uncaught exceptions, takes screenshots. Needs ``websocket-client`` (the ``test`` extra)."""
from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--no-default-browser-check",
         "--disable-dev-shm-usage", "--remote-debugging-port=0", "--window-size=1280,900"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, executable: str, profile: Path, timeout: float = 60.0) -> None:
        import websocket  # websocket-client

        self.proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = profile / "DevToolsActivePort"
        deadline = time.time() + timeout
        while not (port_file.exists() and port_file.read_text().strip()):
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited: {self.proc.stderr.read().decode()[-2000:]}")
            if time.time() > deadline:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        while True:
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5))
                pages = [t for t in targets if t.get("type") == "page"]
                if pages:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                self.close()
                raise RuntimeError("chromium has no page target")
            time.sleep(0.1)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=timeout,
                                              suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    # -- protocol ------------------------------------------------------------------------------
    def send(self, method: str, **params: Any) -> dict[str, Any]:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def _event(self, msg: dict[str, Any]) -> None:
        method, params = msg.get("method"), msg.get("params", {})
        self.events.append(msg)
        if method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            self.errors.append(f"exception: {d.get('exception', {}).get('description') or d.get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                      for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")

    def wait_event(self, method: str, timeout: float = 60.0, since: int = 0) -> dict[str, Any]:
        """The first ``method`` event at or after ``self.events[since]``, waiting for it."""
        deadline = time.time() + timeout
        seen = since
        while time.time() < deadline:
            for msg in self.events[seen:]:
                if msg.get("method") == method:
                    return msg
            seen = len(self.events)
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self._event(msg)
        raise TimeoutError(method)

    # -- conveniences --------------------------------------------------------------------------
    def open(self, path: Path, timeout: float = 120.0) -> None:
        since = len(self.events)
        self.send("Page.navigate", url=path.resolve().as_uri())
        self.wait_event("Page.loadEventFired", timeout, since)

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, out: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        out.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", **params)["data"]))
        return out

    def close(self) -> None:
        try:
            if getattr(self, "ws", None):
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            if self.proc.stderr:
                self.proc.stderr.close()


def metrics_js() -> str:
    """When the first screen was painted (first and largest contentful paint) and when the page was
    parsed and loaded, in ms from navigation start."""
    return """new Promise(resolve => {
      const nav = performance.getEntriesByType('navigation')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const out = {first_contentful_paint_ms: fcp ? fcp.startTime : null,
                   largest_contentful_paint_ms: null,
                   dom_content_loaded_ms: nav ? nav.domContentLoadedEventEnd : null,
                   load_ms: nav ? nav.loadEventEnd : null};
      new PerformanceObserver(list => {
        const e = list.getEntries();
        out.largest_contentful_paint_ms = e[e.length - 1].startTime;
        resolve(out);
      }).observe({type: 'largest-contentful-paint', buffered: true});
      setTimeout(() => resolve(out), 2000);
    })"""


os.environ.setdefault("no_proxy", "127.0.0.1,localhost")
