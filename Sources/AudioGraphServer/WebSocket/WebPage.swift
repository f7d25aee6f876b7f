/// The page at `GET /`: press to talk (or hands-free), the microphone captured with
/// getUserMedia and an AudioWorklet and streamed over the `/audiograph` WebSocket, partials
/// shown as provisional and finals with their confidence, a level meter, stop and cancel, and
/// a box whose text the server speaks and the page plays through Web Audio. Errors are shown
/// in words. No framework; `window.ag` holds what the page saw, for the browser test
/// (Tests/Server/test_browser.py). Kept in the binary, so an installed server serves it.
enum WebPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>audiograph: talk to the speech server</title>
<style>
  body { font: 17px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 40rem; padding: 1rem; color: #111; background: #fafafa; }
  h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
  .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .75rem 0; }
  button { font: inherit; padding: .6rem 1.1rem; border-radius: .5rem; border: 1px solid #555; background: #fff; cursor: pointer; }
  button#talk { background: #0b5; color: #fff; border-color: #084; min-width: 9rem; }
  button#talk[aria-pressed="true"] { background: #c22; border-color: #900; }
  button:disabled { opacity: .5; cursor: default; }
  button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid #36f; outline-offset: 2px; }
  meter { width: 10rem; height: 1rem; }
  #transcript { min-height: 6rem; background: #fff; border: 1px solid #ccc; border-radius: .5rem; padding: .6rem; }
  .final { margin: .2rem 0; }
  .final small { color: #555; }
  .partial { color: #777; font-style: italic; }
  .partial::after { content: " …"; }
  #status { color: #333; }
  #error { color: #a00; font-weight: 600; }
  textarea { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border-radius: .5rem; border: 1px solid #999; }
</style>
</head>
<body>
<main>
  <h1>Talk to audiograph</h1>
  <p id="status" role="status" aria-live="polite">Connecting…</p>
  <p id="error" role="alert"></p>

  <div class="row">
    <button id="talk" aria-pressed="false" disabled>Hold to talk</button>
    <button id="stop" disabled>Stop</button>
    <button id="cancel" disabled>Cancel</button>
    <label><input type="checkbox" id="handsfree"> Hands-free (ends when you stop speaking)</label>
  </div>
  <div class="row">
    <label for="level">Microphone level</label>
    <meter id="level" min="0" max="1" low="0.05" high="0.7" optimum="0.3" value="0"></meter>
  </div>

  <h2 id="heard-label" style="font-size:1.05rem">What the server heard</h2>
  <div id="transcript" aria-labelledby="heard-label" aria-live="polite"></div>

  <h2 style="font-size:1.05rem"><label for="say">Text for the server to speak</label></h2>
  <textarea id="say" rows="2">The kitchen light is on.</textarea>
  <div class="row"><button id="speak" disabled>Speak it</button><button id="hush" disabled>Stop speaking</button></div>
</main>
<script>
"use strict";
// The page's state, read by the tests (Tests/Server/test_browser.py) and nothing else.
const ag = window.ag = { partials: [], finals: [], errors: [], spokenPeak: 0, speaking: false, ended: [], toScreen: [] };
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const keyQuery = params.get("app") ? `?app=${encodeURIComponent(params.get("app"))}&key=${encodeURIComponent(params.get("key") || "")}` : "";
let ws, audio, micNode, micStream, recording = false, partialEl = null;

function say(text) { $("status").textContent = text; }
function fail(text) { $("error").textContent = text; ag.errors.push(text); }

// The microphone's blocks, from an AudioWorklet on the audio thread (as a Blob: one file).
const worklet = `
class Capture extends AudioWorkletProcessor {
  process(inputs) {
    const ch = inputs[0][0];
    if (ch) { let s = 0; for (const v of ch) s += v * v; this.port.postMessage({ samples: ch.slice(0), rms: Math.sqrt(s / ch.length) }); }
    return true;
  }
}
registerProcessor("capture", Capture);`;

function connect(delay = 0) {
  setTimeout(() => {
    ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/audiograph${keyQuery}`);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => { say("Connected. Hold the button (or press Space) and speak."); $("error").textContent = ""; enable(true); delay = 0; };
    ws.onclose = () => {
      enable(false);
      if (recording) endCapture();
      fail("Connection to the speech server lost; reconnecting…");
      connect(Math.min(8000, Math.max(1000, delay * 2)));
    };
    ws.onmessage = (m) => (typeof m.data === "string" ? onEvent(JSON.parse(m.data)) : onSpeech(m.data));
  }, delay);
}

function enable(on) {
  for (const id of ["talk", "speak"]) $(id).disabled = !on;
  $("stop").disabled = $("cancel").disabled = !(on && recording);
}

function onEvent(e) {
  switch (e.type) {
    case "started": say("Listening…"); break;
    case "partial":
      ag.partials.push(e.text);
      if (!partialEl) { partialEl = document.createElement("p"); partialEl.className = "partial"; $("transcript").append(partialEl); }
      partialEl.textContent = e.text;
      break;
    case "final": {
      ag.finals.push({ text: e.text, confidence: e.confidence });
      // End of speech (the utterance's end, in the audio sent) to the final painted, in ms.
      if (ag.audioStart !== undefined) requestAnimationFrame(() => ag.toScreen.push(performance.now() - ag.audioStart - 1000 * e.end));
      if (partialEl) { partialEl.remove(); partialEl = null; }
      const p = document.createElement("p");
      p.className = "final";
      p.textContent = e.text + " ";
      const c = document.createElement("small");
      c.textContent = `(confidence ${Math.round(e.confidence * 100)} %)`;
      p.append(c);
      $("transcript").append(p);
      if ($("handsfree").checked && recording) stopTalking();
      break;
    }
    case "end":
      ag.ended.push(e.reason);
      if (partialEl) { partialEl.remove(); partialEl = null; }
      if (recording) endCapture();
      say(e.reason === "no-speech" ? "Nothing was heard." + (e.suggestion ? " " + e.suggestion : "") : "Done (" + e.reason + ").");
      break;
    case "speak-start": startPlayback(e.rate); break;
    case "speak-end": ag.speaking = false; $("hush").disabled = true; break;
    case "error":
      fail(e.code === "busy" || e.code === "app-busy" ? "The speech server is busy; try again in a moment."
           : e.code === "key" ? "This page needs an app key: open it with ?app=ID&key=KEY." : e.message);
      if (recording) endCapture();
      break;
  }
}

async function startTalking() {
  if (recording || !ws || ws.readyState !== WebSocket.OPEN) return;
  $("error").textContent = "";
  // Browsers give the microphone (and AudioWorklet) to https:// pages and localhost only:
  // a page opened at http://192.168.1.5:2700/ has neither.
  if (!window.isSecureContext || !navigator.mediaDevices) {
    fail(`The browser gives the microphone only to secure pages: open http://localhost:${location.port}/ on the machine `
         + "that serves this one, or serve it over https (TLS in front of the server, as the README shows with HAProxy).");
    return;
  }
  try {
    audio = audio || new AudioContext();
    await audio.resume();
    if (!micNode) {
      await audio.audioWorklet.addModule(URL.createObjectURL(new Blob([worklet], { type: "text/javascript" })));
    }
    micStream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: false, autoGainControl: false } });
  } catch (err) {
    fail(err && err.name === "NotAllowedError" ? "No microphone permission: allow the microphone for this page and try again."
         : err && err.name === "NotFoundError" ? "No microphone found." : "The microphone could not start: " + err);
    return;
  }
  // A microphone unplugged (or taken away) mid-utterance: finish what it heard.
  micStream.getAudioTracks().forEach((t) => t.addEventListener("ended", () => {
    if (!recording || !micStream || !micStream.getTracks().includes(t)) return;
    stopTalking();
    fail("The microphone went away (unplugged?); what it heard is being finished.");
  }));
  const source = audio.createMediaStreamSource(micStream);
  micNode = new AudioWorkletNode(audio, "capture");
  micNode.port.onmessage = ({ data }) => {
    $("level").value = Math.min(1, data.rms * 4);
    if (!recording || ws.readyState !== WebSocket.OPEN) return;
    // When the session's first sample was captured: its stream times are counted from there.
    if (ag.audioStart === undefined) ag.audioStart = performance.now() - 1000 * data.samples.length / audio.sampleRate;
    const pcm = new Int16Array(data.samples.length);
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(data.samples[i] * 32768)));
    ws.send(pcm.buffer);
  };
  source.connect(micNode);
  ag.audioStart = undefined;
  recording = true;
  $("talk").setAttribute("aria-pressed", "true");
  $("talk").textContent = "Listening… release to stop";
  enable(true);
  const handsFree = $("handsfree").checked;
  ws.send(JSON.stringify({ type: "start", graph: "dictation", rate: audio.sampleRate, channels: 1, partials: 0.25,
                           "end-of-speech": handsFree ? "short" : "long" }));
}

function endCapture() {
  recording = false;
  if (micStream) micStream.getTracks().forEach((t) => t.stop());
  if (micNode) micNode.port.onmessage = null;
  micStream = null;
  $("level").value = 0;
  $("talk").setAttribute("aria-pressed", "false");
  $("talk").textContent = "Hold to talk";
  enable(ws && ws.readyState === WebSocket.OPEN);
}

function stopTalking() { if (recording) { ws.send('{"type":"stop"}'); endCapture(); say("Finishing…"); } }
function cancelTalking() { if (recording) { ws.send('{"type":"cancel"}'); endCapture(); say("Cancelled."); } }

// Speech from the server: s16le frames scheduled back to back; an analyser measures what plays.
let playAt = 0, playRate = 16000, analyser = null;
function startPlayback(rate) {
  audio = audio || new AudioContext();
  audio.resume();
  playRate = rate;
  playAt = audio.currentTime + 0.05;
  ag.speaking = true;
  $("hush").disabled = false;
  if (!analyser) {
    analyser = audio.createAnalyser();
    analyser.fftSize = 1024;
    analyser.connect(audio.destination);
    const buf = new Float32Array(analyser.fftSize);
    setInterval(() => {
      analyser.getFloatTimeDomainData(buf);
      let peak = 0;
      for (const v of buf) peak = Math.max(peak, Math.abs(v));
      ag.spokenPeak = Math.max(ag.spokenPeak, peak);
    }, 20);
  }
}
function onSpeech(data) {
  if (!ag.speaking) return;
  const pcm = new Int16Array(data);
  const b = audio.createBuffer(1, pcm.length, playRate);
  const ch = b.getChannelData(0);
  for (let i = 0; i < pcm.length; i++) ch[i] = pcm[i] / 32768;
  const src = audio.createBufferSource();
  src.buffer = b;
  src.connect(analyser);
  playAt = Math.max(playAt, audio.currentTime);
  src.start(playAt);
  playAt += b.duration;
}

$("talk").addEventListener("pointerdown", (e) => { e.preventDefault(); startTalking(); });
$("talk").addEventListener("pointerup", () => { if (!$("handsfree").checked) stopTalking(); });
$("talk").addEventListener("keydown", (e) => {
  if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); recording ? stopTalking() : startTalking(); }
});
$("stop").addEventListener("click", stopTalking);
$("cancel").addEventListener("click", cancelTalking);
$("speak").addEventListener("click", () => { ws.send(JSON.stringify({ type: "speak", text: $("say").value })); });
$("hush").addEventListener("click", () => { ws.send('{"type":"cancel-speech"}'); ag.speaking = false; });
ag.startTalking = startTalking;
ag.stopTalking = stopTalking;
ag.micTrack = () => micStream && micStream.getAudioTracks()[0];
ag.speak = (text) => ws.send(JSON.stringify({ type: "speak", text }));
connect();
</script>
</body>
</html>
"""#
}
