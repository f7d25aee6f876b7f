/// A parameter value as written in a graph file or with `--set`.
public enum ParameterValue: Sendable, Hashable, CustomStringConvertible {
    /// A number (JSON numbers; whole numbers for integer parameters).
    case number(Double)
    /// Text: a string, a choice, a path.
    case string(String)
    /// true or false.
    case bool(Bool)

    /// The value as it would be written in JSON.
    public var description: String {
        switch self {
        case .number(let n):
            return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): return "\"\(s)\""
        case .bool(let b): return String(b)
        }
    }

    /// Name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .number: return "a number"
        case .string: return "a string"
        case .bool: return "a boolean"
        }
    }
}
