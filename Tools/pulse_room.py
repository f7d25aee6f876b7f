"""A private PulseAudio daemon made a room (Tools/pulse-daemon room, drift-free-room or reverb-room): the
captured source hears the user (the daemon's pipe source) and the speaker at full level. For the
benches that run the assistant loop through real audio (assistant_bench.py, echo_bench.py).

    with PulseRoom(work, modules=[...]) as room:
        events = room.events([ag, "run", graph, "--json", ...],
                             lambda: room.speak(raw_pcm))   # s16le 16 kHz mono, in real time
"""
import json, os, subprocess, threading, time


class PulseRoom:
    """`kind`: Tools/pulse-daemon's `room` (the echo through loopbacks that adapt their rates)
    or `drift-free-room` (the microphone the speaker's own monitor: the echo exactly what was
    played, on the playback's clock)."""

    def __init__(self, work, modules=(), kind="room"):
        self.dir = os.path.join(work, "pulse")
        self.modules = modules
        self.kind = kind
        self.env = dict(os.environ)

    def __enter__(self):
        exports = subprocess.run(["Tools/pulse-daemon", "start", self.dir], capture_output=True, text=True, check=True).stdout
        for kv in exports.replace("export ", "").split():
            k, v = kv.split("=", 1)
            self.env[k] = v
        try:
            subprocess.run(["Tools/pulse-daemon", self.kind, self.dir], check=True, env=self.env)
            for m in self.modules:
                subprocess.run(["pactl", "load-module"] + list(m), check=True, env=self.env, stdout=subprocess.DEVNULL)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        subprocess.run(["Tools/pulse-daemon", "stop", self.dir], env=self.env, stdout=subprocess.DEVNULL)
        return False

    def speak(self, raw):
        """Writes s16le 16 kHz mono PCM into the pipe source at real time, 0.1 s at a time."""
        with open(self.env["AG_PULSE_PIPE"], "wb", buffering=0) as pipe:
            t0 = time.monotonic()
            for k in range(0, len(raw), 3200):
                pipe.write(raw[k:k + 3200])
                d = t0 + (k / 3200 + 1) * 0.1 - time.monotonic()
                if d > 0:
                    time.sleep(d)

    def events(self, args, during):
        """Runs `args` (an `audiograph run ... --json`) in the room, calls `during()`, stops it
        with SIGINT and returns its events. Its output is read as it comes: a pipe nobody reads
        fills (64 KiB) and the run's event delivery, the assistant's answers with it, waits."""
        run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=self.env)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(run.stdout))
        reader.start()
        try:
            during()
        finally:
            run.send_signal(2)
            reader.join()
            run.wait()
        return [json.loads(l) for l in lines if l.startswith("{")]
