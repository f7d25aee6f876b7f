import CPulse

/// Facts about the linked libpulse.
public enum PulseLibrary {
    /// libpulse's version, e.g. "16.1.0".
    public static var version: String { String(cString: pa_get_library_version()) }
}
