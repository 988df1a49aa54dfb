/// A command-line usage error: printed with a hint to `--help`, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Hand-rolled option parsing: `--name value`, `--name=value`, boolean `--flag`, repeatable
/// options, positionals, and `--` to end options.
struct Arguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `args` against the options a subcommand accepts (names without `--`).
    init(_ args: some Sequence<String>, options: Set<String>, flags allowedFlags: Set<String> = []) throws(UsageError) {
        var iterator = args.makeIterator()
        var onlyPositionals = false
        while let arg = iterator.next() {
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if options.contains(name) {
                guard let value = inlineValue ?? iterator.next() else { throw UsageError("--\(name) needs a value") }
                values[name, default: []].append(value)
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    /// The last value of `--name`, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// `--name` as an integer, if given.
    func integer(_ name: String) throws(UsageError) -> Int64? {
        guard let text = value(name) else { return nil }
        guard let n = Int64(text) else { throw UsageError("--\(name) must be an integer, got \(text)") }
        return n
    }

    /// Exactly `count` positionals, named for the error message.
    func positionals(_ count: Int, _ what: String) throws(UsageError) -> [String] {
        guard positionals.count == count else {
            throw UsageError("expected \(what), got \(positionals.count) argument(s)")
        }
        return positionals
    }
}

extension Arguments {
    /// `--name` as a number of seconds (fractions allowed), more than 0 and at most a day.
    func seconds(_ name: String) throws(UsageError) -> Duration? {
        guard let text = value(name) else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw UsageError("--\(name) must be a number of seconds, more than 0 and at most 86400, got \(text)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
