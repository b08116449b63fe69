"""A small client of Chromium's DevTools protocol (headless Debian `chromium`, websocket-client from
Debian's python3-websocket or PyPI's websocket-client): start the browser, open a page in a fresh
target, record console errors, exceptions and network requests, read the visible text, evaluate
expressions, take a screenshot. No Selenium, nothing downloaded."""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

import websocket  # python3-websocket (Debian) / websocket-client (PyPI)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium, spoken to over its browser websocket (flattened target sessions)."""

    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="kprof-chromium-")
        args = [exe, "--headless=new", "--remote-debugging-port=0", "--user-data-dir=" + self.profile,
                "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--hide-scrollbars",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,900", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port, path = open(port_file).read().split("\n")[:2]
        self.ws = websocket.create_connection("ws://127.0.0.1:%s%s" % (port, path), timeout=30)
        self.next_id = 0
        self.events = []

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session, timeout=30):
        deadline = time.time() + timeout
        for e in self.events:
            if e.get("method") == method and e.get("sessionId") == session:
                return e
        while time.time() < deadline:
            e = json.loads(self.ws.recv())
            self.events.append(e)
            if e.get("method") == method and e.get("sessionId") == session:
                return e
        raise RuntimeError("no %s within %s s" % (method, timeout))

    def open(self, url, javascript=True):
        """A fresh tab on `url`; returns a Page once its load event fired."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable", session=session)
        if not javascript:
            self.call("Emulation.setScriptExecutionDisabled", {"value": True}, session=session)
        self.events = []
        self.call("Page.navigate", {"url": url}, session=session)
        self.wait_event("Page.loadEventFired", session)
        time.sleep(0.3)  # late console messages
        return Page(self, session, url)

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser, session, url):
        self.b, self.session, self.url = browser, session, url

    def _events(self, method):
        return [e["params"] for e in self.b.events if e.get("method") == method and e.get("sessionId") == self.session]

    def console_errors(self):
        out = []
        for p in self._events("Runtime.consoleAPICalled"):
            if p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        for p in self._events("Runtime.exceptionThrown"):
            out.append(p["exceptionDetails"].get("text", "exception"))
        for p in self._events("Log.entryAdded"):
            if p["entry"].get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out

    def requests(self):
        """Every request the page made other than loading itself (file:// of the page)."""
        return [p["request"]["url"] for p in self._events("Network.requestWillBeSent") if p["request"]["url"] != self.url]

    def eval(self, expr):
        r = self.b.call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=self.session)
        return r["result"].get("value")

    def visible_text(self):
        return self.eval("document.body.innerText")

    def screenshot(self, full_page=False):
        params = {"format": "png"}
        if full_page:
            h = self.eval("Math.min(document.documentElement.scrollHeight, 6000)")
            params["clip"] = {"x": 0, "y": 0, "width": 1280, "height": h, "scale": 1}
            params["captureBeyondViewport"] = True
        return base64.b64decode(self.b.call("Page.captureScreenshot", params, session=self.session)["data"])
