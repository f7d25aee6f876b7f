/// A small argument reader: flags, repeatable options with values, and positionals.
/// Anything left over is an error, so a typo is never silently ignored.
struct Arguments {
    private var items: [String]

    init(_ items: [String]) { self.items = items }

    /// Removes `--name` if present.
    mutating func flag(_ name: String) -> Bool {
        guard let i = items.firstIndex(of: name) else { return false }
        items.remove(at: i)
        return true
    }

    /// Removes every `--name VALUE` and `--name=VALUE`, in order.
    mutating func options(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        var i = 0
        while i < items.count {
            if items[i] == name {
                guard i + 1 < items.count else { throw UsageError("\(name) needs a value") }
                values.append(items[i + 1])
                items.removeSubrange(i...i + 1)
            } else if items[i].hasPrefix(name + "=") {
                values.append(String(items[i].dropFirst(name.count + 1)))
                items.remove(at: i)
            } else {
                i += 1
            }
        }
        return values
    }

    /// Removes the one positional argument, called `what` in errors.
    mutating func positional(_ what: String) throws(UsageError) -> String {
        guard let i = items.firstIndex(where: { !$0.hasPrefix("-") || $0 == "-" }) else {
            throw UsageError("missing \(what)")
        }
        return items.remove(at: i)
    }

    /// Removes every remaining positional argument, in order.
    mutating func positionals() -> [String] {
        let taken = items.filter { !$0.hasPrefix("-") || $0 == "-" }
        items.removeAll { !$0.hasPrefix("-") || $0 == "-" }
        return taken
    }

    /// Throws if anything was not consumed.
    func finish(_ command: String) throws(UsageError) {
        if let extra = items.first {
            throw UsageError(extra.hasPrefix("-") ? "\(command): unknown option \(extra) (see `audiograph \(command) --help`)"
                             : "\(command): unexpected argument \"\(extra)\"")
        }
    }
}
