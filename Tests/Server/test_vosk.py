"""vosk-server's protocol at `/`, as vosk-server's example clients use it (config, binary
chunks each answered, then eof), with the `websockets` client: words, alternatives, phrase
lists (words the dictionary lacks too), other rates, and a config's bad fields."""
import json
import wave

import websockets

from conftest import frames, run, vosk_client


def test_vosk_protocol(server, speech):
    path = speech("go forward ten meters. find japanese restaurants nearby")
    with wave.open(path) as w:
        chunks = -(-w.getnframes() * 2 // 8000)
    replies = run(vosk_client(f"ws://127.0.0.1:{server.http_port}/", path, {"sample_rate": 16000, "words": True}))
    # One reply per binary message, then the final result(s) after eof.
    assert len(replies) >= chunks + 1
    assert all("partial" in r or "text" in r for r in replies[:chunks])
    finals = [r for r in replies if "text" in r]
    text = " ".join(r["text"] for r in finals)
    assert "forward ten meters" in text and "japanese" in text, text
    words = [w for r in finals for w in r.get("result", [])]
    assert words and all({"word", "start", "end", "conf"} <= set(w) for w in words)
    assert any(r.get("partial") for r in replies), "no partial result came while speaking"


def test_vosk_phrase_list_alternatives_and_other_rates(server, speech):
    path = speech("find japanese restaurants nearby", rate=8000)
    config = {"sample_rate": 8000, "phrase_list": ["find japanese restaurants nearby", "go home", "[unk]"], "max_alternatives": 2}
    replies = run(vosk_client(f"ws://127.0.0.1:{server.http_port}/", path, config, chunk=4000))
    alts = [r for r in replies if "alternatives" in r]
    assert alts and alts[0]["alternatives"][0]["text"] == "find japanese restaurants nearby"


def test_vosk_phrase_list_words_the_dictionary_lacks(server, speech):
    """A phrase's word the dictionary lacks is pronounced, as a vocabulary's is (before, the
    session failed: "missing in the dictionary"); a phrase of another script is left out."""
    path = speech("order shawarma")
    config = {"sample_rate": 16000, "phrase_list": ["find japanese restaurants nearby", "order shawarma", "café olé", "звони маме"]}
    replies = run(vosk_client(f"ws://127.0.0.1:{server.http_port}/", path, config, chunk=4000))
    assert not any("error" in r for r in replies), replies
    assert [r["text"] for r in replies if r.get("text")] == ["order shawarma"], replies
    # Hyphenated words, as the dictionary spells some (wi-fi) or not (x-box): phrases too.
    path = speech("turn on the wi-fi and start the x-box please")
    config = {"sample_rate": 16000, "phrase_list": ["turn on the wi-fi and start the x-box please", "go home"]}
    replies = run(vosk_client(f"ws://127.0.0.1:{server.http_port}/", path, config, chunk=4000))
    assert [r["text"] for r in replies if r.get("text")] == ["turn on the wi-fi and start the x-box please"], replies
    # Accented names: heard, and spelled as the phrase spells them.
    path = speech("call zoey please")
    config = {"sample_rate": 16000, "phrase_list": ["call zoë please", "call josé please", "go home"]}
    replies = run(vosk_client(f"ws://127.0.0.1:{server.http_port}/", path, config, chunk=4000))
    assert [r["text"] for r in replies if r.get("text")] == ["call zoë please"], replies


def test_vosk_bad_config_fields_are_errors_naming_the_field(server, speech):
    """A config field of the wrong type was ignored without a word (a sample_rate of "x" left
    16000, a phrase_list string no phrases); each is now a bad-config error naming it, and
    the connection goes on. A phrase repeated 100,000 times is one phrase."""
    bad = [({"sample_rate": "x"}, "sample_rate"), ({"sample_rate": 0}, "sample_rate"), ({"words": "yes"}, "words"),
           ({"max_alternatives": -1}, "max_alternatives"), ({"max_alternatives": 1.5}, "max_alternatives"),
           ({"phrase_list": "go home"}, "phrase_list"), ({"phrase_list": ["go", 2]}, "phrase_list")]
    path = speech("go home")

    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/", max_size=None) as ws:
            answers = []
            for config, _ in bad:
                await ws.send(json.dumps({"config": config}))
                answers.append(json.loads(await ws.recv()))
            await ws.send(json.dumps({"config": {"sample_rate": 16000, "phrase_list": ["go home"] * 100000 + ["stop"]}}))
            for data in frames(path, 8000):
                await ws.send(data)
                await ws.recv()
            await ws.send('{"eof": 1}')
            finals = [json.loads(m) async for m in ws]
            return answers, finals
    answers, finals = run(go())
    for (config, field), answer in zip(bad, answers):
        assert answer["code"] == "bad-config" and field in answer["error"], (config, answer)
    assert [f["text"] for f in finals if "text" in f] == ["go home"], finals


def test_a_client_that_closes_gets_the_close_frame_back(server):
    """RFC 6455 5.5.1: a close frame is answered with one. Before, the server dropped the
    connection instead, and every client saw an abnormal closure (1006: websockets' "no
    close frame received", a browser's wasClean false) after a session that went well."""

    async def go(path, code):
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}{path}") as ws:
            await ws.close(code=code)
            return ws.protocol.close_rcvd  # the close frame the server sent back, if any
    for path in ("/", "/audiograph"):
        for code in (1000, 4000):
            answer = run(go(path, code))
            assert answer is not None and answer.code == code, (path, code, answer)
