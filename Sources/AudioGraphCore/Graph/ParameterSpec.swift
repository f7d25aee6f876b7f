import Foundation

/// One parameter a node type accepts: its name, kind, default, range and help line.
///
/// Specs are the single source for graph-file decoding, `--set`, `validate`,
/// `audiograph nodes` and the README's node reference.
public struct ParameterSpec: Sendable {
    /// The value kinds a parameter can take.
    public enum Kind: Sendable {
        /// A real number, optionally limited to a closed range.
        case number(ClosedRange<Double>?)
        /// A whole number, optionally limited to a closed range.
        case integer(ClosedRange<Int>?)
        /// One of a fixed list of words.
        case choice([String])
        /// Free text.
        case string
        /// A file path, relative to the working directory.
        case path
        /// true or false.
        case bool
        /// One of a few words naming built-in sounds, or a WAV file path (resolved like `path`).
        case sound([String])
    }

    /// The parameter's name in graph files (kebab-case).
    public var name: String
    /// The values it takes.
    public var kind: Kind
    /// Value used when the graph gives none; nil for required or optional-without-default.
    public var defaultValue: ParameterValue?
    /// Whether a graph must give this parameter.
    public var isRequired: Bool
    /// Unit shown in documentation ("dB", "s", "Hz").
    public var unit: String?
    /// One line saying what the parameter does.
    public var help: String
    /// Whether the path names a file the node writes: in a graph file a relative one is
    /// resolved against the working directory (where a user expects output), while the paths
    /// a node reads are resolved against the graph file's folder.
    public var isOutput: Bool

    /// A parameter `name` of `kind`, with its default, whether required, unit, whether it
    /// names a file written (`output`) and help line.
    public init(
        _ name: String, _ kind: Kind, default defaultValue: ParameterValue? = nil,
        required: Bool = false, unit: String? = nil, output: Bool = false, help: String
    ) {
        self.isOutput = output
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.isRequired = required
        self.unit = unit
        self.help = help
    }

    /// Checks `value` against the kind; returns the normalised value or a reason.
    public func check(_ value: ParameterValue) -> Result<ParameterValue, ValueProblem> {
        switch (kind, value) {
        case (.number(let range), .number(let n)):
            guard n.isFinite else { return .failure(ValueProblem("expected a finite number, got \(value)")) }
            if let range, !range.contains(n) {
                return .failure(ValueProblem("expected a number in \(Self.format(range))\(unitNote), got \(value)"))
            }
            return .success(value)
        case (.integer(let range), .number(let n)):
            guard n == n.rounded(), abs(n) < 1e15 else {
                return .failure(ValueProblem("expected a whole number, got \(value)"))
            }
            if let range, !range.contains(Int(n)) {
                return .failure(ValueProblem("expected a whole number in \(range.lowerBound)...\(range.upperBound), got \(value)"))
            }
            return .success(value)
        case (.choice(let words), .string(let s)):
            guard words.contains(s) else {
                return .failure(ValueProblem("expected one of \(words.joined(separator: ", ")), got \(value)"))
            }
            return .success(value)
        case (.string, .string), (.bool, .bool):
            return .success(value)
        case (.path, .string(let s)):
            return s.isEmpty ? .failure(ValueProblem("expected a file path, got an empty string")) : .success(.string(Self.expandingHome(s)))
        case (.sound(let words), .string(let s)):
            guard !s.isEmpty else { return .failure(ValueProblem("expected \(kindDescription), got an empty string")) }
            return .success(words.contains(s) ? value : .string(Self.expandingHome(s)))
        default:
            return .failure(ValueProblem("expected \(kindDescription)\(unitNote), got \(value)"))
        }
    }

    /// " dB", " s", " Hz" after a number's range in a refusal, so `-6dB` and `500ms` are seen
    /// to be the ways to write it (``withUnit(_:)``); empty for a parameter without a unit.
    private var unitNote: String {
        guard let unit else { return "" }
        switch kind {
        case .number, .integer: return unit == "s" ? " s (or ms)" : " \(unit)"
        default: return ""
        }
    }

    /// Human description of the accepted values: "a number in 0...1", "one of s16, s24, f32".
    public var kindDescription: String {
        switch kind {
        case .number(let r): return r.map { "a number in \(Self.format($0))" } ?? "a number"
        case .integer(let r): return r.map { "a whole number in \($0.lowerBound)...\($0.upperBound)" } ?? "a whole number"
        case .choice(let words): return "one of \(words.joined(separator: ", "))"
        case .string: return "a string"
        case .path: return "a file path"
        case .bool: return "true or false"
        case .sound(let words): return "\(words.joined(separator: ", ")) or a WAV file path"
        }
    }

    /// Short type name for tables: number, integer, choice, string, path, bool.
    public var kindName: String {
        switch kind {
        case .number: return "number"
        case .integer: return "integer"
        case .choice: return "choice"
        case .string: return "string"
        case .path: return "path"
        case .bool: return "bool"
        case .sound: return "sound"
        }
    }

    /// Parses a `--set` value (always text) into this parameter's kind.
    public func parse(text: String) -> ParameterValue {
        switch kind {
        case .number, .integer:
            if let n = Double(text) { return .number(n) }
            if let n = withUnit(text) { return .number(n) }
        case .bool:
            if text == "true" { return .bool(true) }
            if text == "false" { return .bool(false) }
        default: break
        }
        return .string(text)
    }

    /// A number written with this parameter's unit, as a user types it on a command line:
    /// `-6dB` or `-6 dB` (dB, dBFS), `0.5s` or `500ms` (seconds), `16kHz` or `44100 Hz` (Hz);
    /// a typographic minus (`−6`) as `-`. Nil for any other text, a unit not this
    /// parameter's among them (the error then says which number is wanted).
    func withUnit(_ text: String) -> Double? {
        guard let unit else { return nil }
        let t = text.replacingOccurrences(of: "\u{2212}", with: "-")
        let scales: [(suffix: String, scale: Double)] = switch unit {
        case "s": [("ms", 0.001), ("s", 1)]
        case "Hz": [("khz", 1000), ("hz", 1)]
        default: [(unit.lowercased(), 1)]
        }
        for (suffix, scale) in scales where t.lowercased().hasSuffix(suffix) {
            let number = t.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            if let n = Double(number), n.isFinite { return n * scale }
        }
        return t != text ? Double(t) : nil
    }

    /// `~/x.wav` as the home folder's `x.wav` (and `~` as the home folder), as a shell would
    /// have: graph files and `--set out.path=~/x.wav` (no shell expands a `~` after `=`) took
    /// it as a folder named `~`. Other paths as they are.
    public static func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        guard let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") else { return path }
        return home + path.dropFirst()
    }

    static func format(_ range: ClosedRange<Double>) -> String {
        "\(ParameterValue.number(range.lowerBound))...\(ParameterValue.number(range.upperBound))"
    }
}

/// Why a parameter value was refused: what was expected and what was given.
public struct ValueProblem: Error, Sendable {
    /// Expected what, got what.
    public var message: String
    /// A problem described by `message`.
    public init(_ message: String) { self.message = message }
}
