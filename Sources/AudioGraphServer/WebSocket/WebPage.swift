/// The page at `GET /`. For now it says what the server offers; the press-to-talk page
/// (getUserMedia + AudioWorklet over the `/audiograph` WebSocket) is the next step.
enum WebPage {
    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>audiograph serve</title></head>
    <body><main>
    <h1>audiograph serve</h1>
    <p>A speech server. WebSocket protocols: vosk-server's at <code>/</code>, audiograph's own at
    <code>/audiograph</code>. Health: <a href="/healthz">/healthz</a>, metrics: <a href="/metrics">/metrics</a>.
    Home Assistant: add the Wyoming integration with this host and port 10300.</p>
    </main></body></html>
    """
}
