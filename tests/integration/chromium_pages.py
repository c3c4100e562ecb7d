#!/usr/bin/env python3
"""Opens HTML pages one after another in one headless Chromium, driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: no port, no network), and writes for each PAGE.html given:
  OUT/PAGE.selftest  the text of the page's #dgx-selftest after loading it as PAGE.html#selftest (empty if none),
  OUT/PAGE.console   one line per console message, uncaught exception or browser log entry of that load,
  SHOTS/PAGE.png     a 1400x1800 screenshot of the page as a user opens it (without #selftest).
One browser start for all pages instead of two per page: a start costs seconds, a page a fraction of one.
Usage: chromium_pages.py BROWSER OUT SHOTS PAGE.html...   Exit 1 when the browser fails (it says why)."""
import base64
import json
import os
import select
import subprocess
import sys
import tempfile
import time

LOAD_TIMEOUT_S = 60
ANIMATION_S = 1.5  # Chart.js animates a chart for 1 s: the screenshot waits for the drawn chart


class Browser:
    def __init__(self, exe, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def on_fds_3_and_4():  # the pipe's ends where Chromium expects them: it reads fd 3, writes fd 4
            os.dup2(to_browser_r, 200)
            os.dup2(from_browser_w, 201)
            os.dup2(200, 3)
            os.dup2(201, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=on_fds_3_and_4, pass_fds=(3, 4))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.events = []
        self.last_id = 0

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer within the time limit")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe (exit %s)" % self.proc.poll())
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=LOAD_TIMEOUT_S):
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self.last_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, session, timeout=LOAD_TIMEOUT_S):
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[i]
                    return event
            self.events.append(self._read(deadline))

    def take_events(self, session):
        mine = [e for e in self.events if e.get("sessionId") == session]
        self.events = [e for e in self.events if e.get("sessionId") != session]
        return mine

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def describe(event):
    """A console message, an uncaught exception or a browser log entry as one line; None for what is none."""
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.consoleAPICalled":
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
        return "console.%s: %s" % (params.get("type"), args)
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        return "exception: %s" % details.get("exception", {}).get("description", details.get("text"))
    if method == "Log.entryAdded":
        entry = params.get("entry", {})
        if entry.get("source") == "violation":  # performance hints ("handler took 60 ms"), not the page's errors
            return None
        return "log %s %s: %s (%s)" % (entry.get("level"), entry.get("source"), entry.get("text"), entry.get("url"))
    return None


def one_line(text):
    return " | ".join(part.strip() for part in text.splitlines() if part.strip())


def open_page(browser, url, with_screenshot):
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        browser.call(domain + ".enable", session=session)
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": 1400, "height": 1800, "deviceScaleFactor": 1, "mobile": False}, session)
    browser.call("Page.navigate", {"url": url}, session)
    browser.wait_for("Page.loadEventFired", session)
    text = browser.call("Runtime.evaluate", {
        "expression": "(document.getElementById('dgx-selftest') || {}).textContent || ''", "returnByValue": True},
        session)["result"].get("value", "")
    shot = None
    if with_screenshot:
        time.sleep(ANIMATION_S)
        shot = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"}, session)["data"])
    lines = [one_line(line) for line in map(describe, browser.take_events(session)) if line]
    browser.call("Target.closeTarget", {"targetId": target})
    return text, lines, shot


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    exe, out, shots, pages = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(exe, profile)
        try:
            for page in pages:
                name = os.path.splitext(os.path.basename(page))[0]
                url = "file://" + os.path.abspath(page)
                selftest, console, _ = open_page(browser, url + "#selftest", with_screenshot=False)
                _, more, shot = open_page(browser, url, with_screenshot=True)
                with open(os.path.join(out, name + ".selftest"), "w") as f:
                    f.write(selftest)
                with open(os.path.join(out, name + ".console"), "w") as f:
                    f.writelines(line + "\n" for line in console + more)
                with open(os.path.join(shots, name + ".png"), "wb") as f:
                    f.write(shot)
        except (RuntimeError, TimeoutError, OSError) as e:
            print("chromium_pages.py: %s" % e, file=sys.stderr)
            return 1
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
