"""The page at `/` in a real browser: Debian's chromium, headless, driven over the DevTools
protocol, its microphone fed with flite speech (--use-file-for-fake-audio-capture)."""
import asyncio
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest
import websockets

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Tools/install-deps installs it)")


class Browser:
    """A headless chromium and one page, over the DevTools protocol."""

    def __init__(self, fake_audio, extra=()):
        self.profile = tempfile.mkdtemp(prefix="ag-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--mute-audio",
             "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
             f"--use-file-for-fake-audio-capture={fake_audio}", "--autoplay-policy=no-user-gesture-required",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", *extra, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        self.url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        self.ids = itertools.count(1)

    async def __aenter__(self):
        self.ws = await websockets.connect(self.url, max_size=None)
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def call(self, method, **params):
        i = next(self.ids)
        await self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            m = json.loads(await self.ws.recv())
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]

    async def js(self, expression):
        r = await self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    async def until(self, expression, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if await self.js(expression):
                    return
            except RuntimeError:
                pass  # the page is not there yet (navigation still under way): not true yet
            await asyncio.sleep(0.2)
        raise AssertionError(f"not true within {timeout} s: {expression}; page state {await self.js('JSON.stringify(window.ag)')}")

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def test_the_page_hears_shows_and_speaks(server, speech):
    wav = speech("find japanese restaurants nearby", rate=48000, pad=1.5)
    browser = Browser(wav)

    async def go():
        async with browser as b:
            await b.call("Page.enable")
            await b.call("Page.navigate", url=f"http://127.0.0.1:{server.http_port}/")
            await b.until("window.ag && !document.getElementById('talk').disabled")
            assert await b.js("document.querySelector('label[for=level]') !== null && document.getElementById('talk').tagName") == "BUTTON"
            # Hands-free: the page stops by itself after the first final.
            await b.js("document.getElementById('handsfree').checked = true; ag.startTalking()")
            await b.until("ag.finals.length > 0", timeout=40)
            await b.until("ag.ended.length > 0 && ag.toScreen.length > 0")
            state = await b.js("JSON.stringify(ag)")
            shown = await b.js("document.getElementById('transcript').innerText")
            if os.environ.get("AG_PAGE_SCREENSHOT"):
                # The README's picture of the page (Tools/test does not set it).
                await b.call("Emulation.setDeviceMetricsOverride", width=720, height=760, deviceScaleFactor=1, mobile=False)
                shot = await b.call("Page.captureScreenshot", format="png")
                with open(os.environ["AG_PAGE_SCREENSHOT"], "wb") as f:
                    f.write(__import__("base64").b64decode(shot["data"]))
            # Speech out: the page plays what the server says; an AnalyserNode measures it.
            await b.js("ag.speak('The kitchen light is on.')")
            await b.until("ag.spokenPeak > 0.05", timeout=20)
            return json.loads(state), shown
    try:
        state, shown = asyncio.run(asyncio.wait_for(go(), 120))
    finally:
        browser.close()
    assert not state["errors"], state["errors"]
    assert "japanese" in state["finals"][0]["text"], state
    assert 0 < state["finals"][0]["confidence"] <= 1
    assert state["partials"], "no partial result appeared before the final"
    assert "japanese" in shown and "confidence" in shown
    assert state["ended"][0] == "stopped"
    # The page's end of speech to the final painted (a figure, not a bound: reported with -s).
    to_screen = state["toScreen"][0]
    assert 0 < to_screen < 30000, state["toScreen"]
    print(f"page: end of speech to the final on screen {to_screen:.0f} ms")


def test_a_microphone_that_goes_away_finishes_the_utterance(server, speech):
    browser = Browser(speech("find japanese restaurants nearby", rate=48000, pad=1.5))

    async def go():
        async with browser as b:
            await b.call("Page.enable")
            await b.call("Page.navigate", url=f"http://127.0.0.1:{server.http_port}/")
            await b.until("window.ag && !document.getElementById('talk').disabled")
            await b.js("ag.startTalking()")  # held: only the page's stop ends it
            await b.until("ag.partials.some((p) => p.includes('japanese'))", timeout=40)
            # What the browser does when the device is unplugged: the track ends.
            await b.js("ag.micTrack().dispatchEvent(new Event('ended'))")
            await b.until("ag.ended.length > 0", timeout=30)
            return json.loads(await b.js("JSON.stringify(ag)")), await b.js("document.getElementById('talk').textContent")
    try:
        state, button = asyncio.run(asyncio.wait_for(go(), 120))
    finally:
        browser.close()
    assert state["ended"] == ["stopped"], state
    assert state["finals"] and "japanese" in state["finals"][0]["text"], state
    assert any("microphone went away" in e for e in state["errors"]), state["errors"]
    assert button == "Hold to talk"


def test_the_page_says_when_the_server_is_gone(speech):
    from conftest import Server
    s = Server("--wyoming", "none")
    browser = Browser(speech("hello", pad=0.5))

    async def go():
        async with browser as b:
            await b.call("Page.enable")
            await b.call("Page.navigate", url=f"http://127.0.0.1:{s.http_port}/")
            await b.until("window.ag && !document.getElementById('talk').disabled")
            s.proc.kill()
            s.proc.wait()
            await b.until("document.getElementById('error').innerText.includes('lost')")
            return await b.js("document.getElementById('talk').disabled")
    try:
        assert asyncio.run(asyncio.wait_for(go(), 60)) is True
    finally:
        browser.close()
        s.stop()


def test_the_page_opened_by_a_network_name_says_why_the_microphone_is_not_there(server, speech):
    """Opened as http://NAME:PORT/ (a phone on the LAN at the server's address), the page is
    not a secure context: the browser gives it no microphone and no AudioWorklet. It says so
    and how to get one; before, "The microphone could not start: TypeError: Cannot read
    properties of undefined". The name resolves to loopback (tests stay on loopback)."""
    browser = Browser(speech("hello", pad=0.5), extra=["--host-resolver-rules=MAP speech.test 127.0.0.1"])

    async def go():
        async with browser as b:
            await b.call("Page.enable")
            await b.call("Page.navigate", url=f"http://speech.test:{server.http_port}/")
            await b.until("window.ag && !document.getElementById('talk').disabled")
            assert await b.js("window.isSecureContext") is False
            await b.js("ag.startTalking()")
            await b.until("ag.errors.length > 0")
            return await b.js("ag.errors[0]")
    try:
        error = asyncio.run(asyncio.wait_for(go(), 60))
        assert "only to secure pages" in error and f"http://localhost:{server.http_port}/" in error, error
    finally:
        browser.close()
