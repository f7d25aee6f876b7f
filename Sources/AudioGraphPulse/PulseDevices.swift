import AudioGraphCore

/// The server's sources and sinks (`audiograph devices`).
public enum PulseDevices {
    /// Connects, lists sources and sinks, disconnects. Throws when no server is reachable.
    public static func list() throws(EngineError) -> (server: String, sources: [PulseDevice], sinks: [PulseDevice]) {
        let c = try PulseConnection(name: "audiograph devices")
        return (c.server, c.devices(sinks: false), c.devices(sinks: true))
    }
}
