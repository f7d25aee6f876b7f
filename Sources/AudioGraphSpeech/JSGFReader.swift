/// A JSGF grammar's tokens, read as PocketSphinx's scanner reads them: comments (`//`, `/* */`),
/// rule names in angle brackets, tags in braces, quoted words and weights between slashes are
/// recognised (in linear time, whatever the text); tags and weights are dropped (they do not change the automaton's shape). As there, words
/// and symbols count only in the header, the grammar's name and a rule's body (from `=` to
/// `;`): elsewhere they are skipped, as is a character no token starts with.
struct JSGFTokens {
    enum Token: Equatable {
        case word(String)
        case rule(String)
        case symbol(Character)  // = ; | * + ( ) [ ]
        case header, grammar, `import`, `public`
    }

    var tokens: [(token: Token, line: Int)] = []

    static func read(_ text: String) -> JSGFTokens {
        let s = Array(text.unicodeScalars)
        var out = JSGFTokens()
        var i = 0, line = 1
        var counting = false  // in the header, the grammar's name or a rule's body
        var inBody = false  // where keywords are words too
        let keywords: [(text: String, token: Token)] = [("#JSGF", .header), ("grammar", .grammar), ("import", .import), ("public", .public)]
        func emit(_ t: Token) {
            out.tokens.append((t, line))
            switch t {
            case .header, .grammar, .import: counting = true
            case .symbol("="): (counting, inBody) = (true, true)
            case .symbol(";"): (counting, inBody) = (false, false)
            default: break
            }
        }
        // Where each closing character next stands from every position, so that an unclosed
        // rule name, tag or quote costs one look, not a scan to the end: the text may be a
        // client's megabyte of them. (A backslash does not escape a closing character here.)
        func next(_ c: Unicode.Scalar) -> [Int] {
            var t = [Int](repeating: s.count, count: s.count + 1)
            for k in stride(from: s.count - 1, through: 0, by: -1) { t[k] = s[k] == c ? k : t[k + 1] }
            return t
        }
        let nextAngle = next(">"), nextOpen = next("<"), nextBrace = next("}"), nextQuote = next("\""), nextSlash = next("/")
        func closing(_ table: [Int], from: Int) -> Int? {
            from < s.count && table[from] < s.count ? table[from] : nil
        }
        while i < s.count {
            let c = s[i]
            if c == "\n" { line += 1; i += 1; continue }
            if c == " " || c == "\t" || c == "\r" { i += 1; continue }
            if c == "/", i + 1 < s.count, s[i + 1] == "/" {
                while i < s.count, s[i] != "\n" { i += 1 }
                continue
            }
            if c == "/", i + 1 < s.count, s[i + 1] == "*" {
                var j = i + 2
                while j + 1 < s.count, !(s[j] == "*" && s[j + 1] == "/") { j += 1 }
                line += s[i..<min(j + 2, s.count)].filter { $0 == "\n" }.count
                i = j + 2  // an unclosed comment runs to the end
                continue
            }
            if c == "/", let end = closing(nextSlash, from: i + 1),
               s[(i + 1)..<end].allSatisfy({ ("0"..."9").contains($0) || $0 == "." }) {
                i = end + 1  // a weight
                continue
            }
            if c == "<", let end = closing(nextAngle, from: i + 1), end > i + 1, nextOpen[i + 1] > end {
                line += s[i...end].filter { $0 == "\n" }.count
                emit(.rule(String(String.UnicodeScalarView(s[(i + 1)..<end]))))
                i = end + 1
                continue
            }
            if !counting && c != "=" {
                // Outside, the scanner looks for its keywords character by character (quotes,
                // tags and weights only count in a body).
                if let k = keywords.first(where: { k in s[i...].starts(with: k.text.unicodeScalars) }) {
                    emit(k.token)
                    i += k.text.unicodeScalars.count
                } else {
                    i += 1
                }
                continue
            }
            if c == "{", let end = closing(nextBrace, from: i + 1) {
                line += s[i...end].filter { $0 == "\n" }.count
                i = end + 1  // a tag
                continue
            }
            let ends = " \t\r\n;=|*+<>()[]{}/".unicodeScalars
            var run = i
            while run < s.count, !ends.contains(s[run]) { run += 1 }
            // A quoted token, where it is longer than the plain token from the same quote.
            if c == "\"", let end = closing(nextQuote, from: i + 1), end + 1 > run {
                line += s[i...end].filter { $0 == "\n" }.count
                if counting { emit(.word(String(String.UnicodeScalarView(s[(i + 1)..<end])))) }
                i = end + 1
                continue
            }
            if c == "=" || (c == ";" && counting) {
                emit(.symbol(Character(c)))
                i += 1
                continue
            }
            if "|*+()[]".unicodeScalars.contains(c) {
                if counting { emit(.symbol(Character(c))) }
                i += 1
                continue
            }
            if run == i { i += 1; continue }  // no token starts here
            let word = String(String.UnicodeScalarView(s[i..<run]))
            emit(inBody ? .word(word) : keywords.first { $0.text == word }?.token ?? .word(word))
            i = run
        }
        return out
    }
}

/// A JSGF grammar's rules, parsed: each rule's expansion and which rules are public. Rule
/// names lose their grammar's qualification (`<g.a>` is `a`).
struct JSGFRules {
    indirect enum Expansion {
        case word
        case rule(String)
        case sequence([Expansion])
        case alternatives([Expansion])
        case optional(Expansion)  // [x]
        case repeated(Expansion)  // x*
        case once(Expansion)  // x+
    }

    /// A grammar nested deeper than this (groups, optionals, repetitions) is refused, not
    /// read: no grammar written for speech comes near it.
    static let deepest = 100

    /// Nesting past ``deepest``, at `line`.
    struct TooDeep: Error { let line: Int }

    /// Why a grammar was not read, and where: nested past ``deepest``, or text this does not
    /// read as JSGF (a syntax error, or text PocketSphinx's parser passes over); or, with
    /// `rule`, that public rule expands past ``GrammarSize/deepest`` levels.
    struct Problem: Error, Equatable {
        let line: Int
        let tooDeep: Bool
        var rule: String? = nil
    }

    var bodies: [String: Expansion] = [:]
    var publicNames: [String] = []

    /// The rules of `tokens`.
    static func parse(_ tokens: JSGFTokens) throws(Problem) -> JSGFRules {
        var p = Parser(tokens: tokens.tokens)
        do {
            if let rules = try p.grammar() { return rules }
        } catch {
            throw Problem(line: error.line, tooDeep: true)
        }
        throw Problem(line: tokens.tokens.isEmpty ? 1 : tokens.tokens[min(p.at, tokens.tokens.count - 1)].line, tooDeep: false)
    }

    private struct Parser {
        let tokens: [(token: JSGFTokens.Token, line: Int)]
        var at = 0
        var depth = 0

        var next: JSGFTokens.Token? { at < tokens.count ? tokens[at].token : nil }
        mutating func take(_ t: JSGFTokens.Token) -> Bool {
            guard next == t else { return false }
            at += 1
            return true
        }

        static func local(_ name: String) -> String {
            name.split(separator: ".").last.map(String.init) ?? name
        }

        mutating func grammar() throws(TooDeep) -> JSGFRules? {
            guard take(.header) else { return nil }
            for _ in 0..<3 { if case .word = next { at += 1 } }  // version, encoding, locale
            guard take(.symbol(";")), take(.grammar) else { return nil }
            guard case .word = next else { return nil }
            at += 1
            guard take(.symbol(";")) else { return nil }
            while take(.import) {
                guard case .rule = next else { return nil }
                at += 1
                guard take(.symbol(";")) else { return nil }
            }
            var rules = JSGFRules()
            while next != nil {
                let isPublic = take(.public)
                guard case .rule(let name) = next else { return nil }
                at += 1
                guard take(.symbol("=")), let body = try alternatives(), take(.symbol(";")) else { return nil }
                // A rule defined twice: counted as either, whichever PocketSphinx keeps.
                rules.bodies[Self.local(name)] = rules.bodies[Self.local(name)].map { .alternatives([$0, body]) } ?? body
                if isPublic { rules.publicNames.append(Self.local(name)) }
            }
            return rules
        }

        mutating func alternatives() throws(TooDeep) -> Expansion? {
            depth += 1
            defer { depth -= 1 }
            if depth > JSGFRules.deepest { throw TooDeep(line: tokens[min(at, tokens.count - 1)].line) }
            var branches: [Expansion] = []
            repeat {
                guard let s = try sequence() else { return nil }
                branches.append(s)
            } while take(.symbol("|"))
            return branches.count == 1 ? branches[0] : .alternatives(branches)
        }

        mutating func sequence() throws(TooDeep) -> Expansion? {
            var items: [Expansion] = []
            while let item = try self.item() { items.append(item) }
            if items.isEmpty { return nil }
            return items.count == 1 ? items[0] : .sequence(items)
        }

        mutating func item() throws(TooDeep) -> Expansion? {
            guard var e = try atom() else { return nil }
            var operators = 0
            while true {
                if take(.symbol("*")) { e = .repeated(e) } else if take(.symbol("+")) { e = .once(e) } else { break }
                operators += 1
                if depth + operators > JSGFRules.deepest { throw TooDeep(line: tokens[at - 1].line) }
            }
            return e
        }

        mutating func atom() throws(TooDeep) -> Expansion? {
            switch next {
            case .word:
                at += 1
                return .word
            case .rule(let name):
                at += 1
                return .rule(Self.local(name))
            case .symbol("("):
                at += 1
                guard let e = try alternatives(), take(.symbol(")")) else { return nil }
                return e
            case .symbol("["):
                at += 1
                guard let e = try alternatives(), take(.symbol("]")) else { return nil }
                return .optional(e)
            default:
                return nil
            }
        }
    }
}
