import AudioGraph
import AudioGraphPulse

/// `audiograph devices`: the PulseAudio sources and sinks.
enum DevicesCommand: Command {
    static let name = "devices"
    static let abstract = "List the PulseAudio sources and sinks."
    static let help = """
        USAGE: audiograph devices [--json]

        Lists every source (microphones, monitors) and sink of the PulseAudio server
        (PULSE_SERVER, or the user's default), with its sample spec; * marks the defaults,
        and "(muted)" a device muted at the server.

        OPTIONS:
          --json       One JSON object per device.
          -h, --help   Show this help.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var args = Arguments(arguments)
        let json = args.flag("--json")
        try args.finish(name)
        let (server, sources, sinks) = try PulseDevices.list()
        if json {
            for (kind, list) in [("source", sources), ("sink", sinks)] {
                for d in list {
                    var j = JSONLine()
                    j.add("type", kind); j.add("name", d.name); j.add("description", d.description)
                    j.add("rate", d.rate); j.add("channels", d.channels); j.add("format", d.sampleFormat)
                    j.add("default", d.isDefault)
                    j.add("muted", d.isMuted)
                    if kind == "source" { j.add("monitor", d.isMonitor) }
                    print(j.text)
                }
            }
            return 0
        }
        print(VisibleText.escaped("PulseAudio server \(server)"))
        for (title, list) in [("sources", sources), ("sinks", sinks)] {
            print("\(title):")
            if list.isEmpty { print("  (none)") }
            for d in list {
                // Names and descriptions come from the devices (a Bluetooth one names itself).
                print(VisibleText.escaped("  \(d.isDefault ? "*" : " ") \(d.name)  \(d.sampleFormat) \(d.channels)ch \(d.rate)Hz  \(d.description)\(d.isMuted ? "  (muted)" : "")"))
            }
        }
        return 0
    }
}
