/// What a node id may be: letters, digits, `-` and `_`. The command line and the graph file
/// name nodes inside other syntax (`--set NODE.PARAM=VALUE`, `--source NODE=FILE`,
/// `"from": "NODE:BUS"`, `"from": "NODE.PORT"`), so an id with `.`, `=`, `:`, a space or a
/// control character could not be named there, or would print as something else.
public enum NodeID {
    /// The rule, as an error states it.
    public static let rule = "a node id is letters, digits, '-' and '_' only (it is named in --set NODE.PARAM=VALUE, --source NODE=FILE and \"NODE:BUS\")"

    /// Whether `id` is non-empty and made of letters, digits, `-` and `_`.
    public static func isWellFormed(_ id: String) -> Bool {
        !id.isEmpty && id.allSatisfy(allowed)
    }

    /// `id` with each run of other characters made one `_`, when that leaves a letter or digit.
    public static func suggestion(for id: String) -> String? {
        var out = ""
        for c in id {
            if allowed(c) { out.append(c) } else if !out.hasSuffix("_") { out.append("_") }
        }
        while out.hasPrefix("_") { out.removeFirst() }
        while out.hasSuffix("_") { out.removeLast() }
        return out.contains(where: { $0.isLetter || $0.isNumber }) ? out : nil
    }

    private static func allowed(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "-" || c == "_" }
}
