"""Sound files for the benches that play through a room (assistant_bench.py, echo_bench.py,
echo_room_erle.py): sox, flite's voices at 16 kHz mono, 16-bit samples read back, and the
answer the echo benches play."""
import array, subprocess, wave

# The echo benches' answer: 10.3 s of flite's rms voice.
ANSWER_TEXT = ("Here is the weather for today. It will be sunny in the morning with clouds later on. "
               "The high will be seventy two degrees and the low fifty five. Tomorrow looks much the same.")


def sox(*args):
    subprocess.run(["sox"] + list(args), check=True, stderr=subprocess.DEVNULL)


def flite(text, path, voice="rms"):
    """`text` spoken by flite's `voice`, written to `path` as 16 kHz mono 16-bit WAV."""
    raw = path + ".raw.wav"
    subprocess.run(["flite", "-voice", voice, "-t", text, "-o", raw], check=True)
    sox(raw, "-r", "16000", "-c", "1", "-b", "16", path)


def samples(path):
    """A 16-bit WAV file's first channel's samples as floats in -1...1 (mono files here)."""
    w = wave.open(path)
    return [x / 32768 for x in array.array("h", w.readframes(w.getnframes()))]


def raw_samples(path):
    """Raw s16le mono (what parec writes) as floats in -1...1."""
    with open(path, "rb") as f:
        return [x / 32768 for x in array.array("h", f.read())]
