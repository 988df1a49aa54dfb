/// Reads `parley` / `parley-server` command lines out of Markdown, and each command's synopsis out
/// of `parley help`, for `DocumentedFlagsTests`.
enum DocumentedCommands {
    /// One command line found in the docs.
    struct Invocation {
        var program: String
        /// What follows the program name up to the first option (`call bob`, `keys list`).
        var words: [String]
        var flags: [String]
        var text: String
        var place: String
    }

    /// `--name` tokens in order (`--name=value` counts as `--name`).
    static func flags(in text: some StringProtocol) -> [String] {
        String(text).matches(of: /(?:^|[^\w-])(--[a-z][a-z0-9-]*)/).map { String($0.output.1) }
    }

    /// Each `parley X [Y]` synopsis of a usage text, keyed `X` or `X Y` (Y a lowercase
    /// subcommand word), with the flags of its line and its continuation lines (indented lines that
    /// start with `[`, `(` or `--`; description lines start with words and do not count).
    static func synopses(inUsage usage: String) -> [String: [String]] {
        var synopses: [String: [String]] = [:]
        var current: String?
        for line in usage.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("parley ") {
                let words = trimmed.split(separator: " ").dropFirst()
                guard let command = words.first else { continue }
                let second = words.dropFirst().first
                let key = second.map { $0.allSatisfy(\.isLowercase) } == true ? "\(command) \(second!)" : String(command)
                synopses[key, default: []] += flags(in: trimmed)
                current = key
            } else if let key = current, trimmed.count < line.count, let first = trimmed.first, "[(-".contains(first) {
                synopses[key, default: []] += flags(in: trimmed)
            } else {
                current = nil
            }
        }
        return synopses
    }

    /// The command lines of a Markdown text: those in fenced code blocks (joined with their
    /// continuation lines) and in inline code spans elsewhere.
    static func invocations(inMarkdown text: String, file: String) -> [Invocation] {
        var found: [Invocation] = []
        var inFence = false
        var pending: (text: String, line: Int)?
        func flush() {
            if let (code, line) = pending { found += invocations(inCode: code, place: "\(file):\(line)") }
            pending = nil
        }
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                flush()
                inFence.toggle()
                continue
            }
            if inFence {
                let code = line.firstMatch(of: /\s#/).map { line[..<$0.range.lowerBound] } ?? line[...]
                let trimmed = code.drop { $0 == " " }
                if let previous = pending?.text, previous.hasSuffix("\\") {
                    pending?.text = previous.dropLast() + " " + trimmed
                } else if pending != nil, trimmed.count < code.count, let first = trimmed.first, "[(-".contains(first) {
                    pending?.text += " " + trimmed
                } else {
                    flush()
                    pending = (String(code), index + 1)
                }
            } else {
                for span in line.matches(of: /`([^`]+)`/) {
                    found += invocations(inCode: String(span.output.1), place: "\(file):\(index + 1)")
                }
            }
        }
        flush()
        return found
    }

    /// The commands in one line of code: from each `parley`/`parley-server` in command position
    /// (the start, or after `|`, `&`, `;`, `(`; a path before it is fine) to the next one, a
    /// comment, `&&`, `&`, `;`, or a `)` that closes what the line opened before the command.
    static func invocations(inCode code: String, place: String) -> [Invocation] {
        let starts = code.matches(of: /(?:^|[|&;(])\s*(?:[\w.\/-]*\/)?(parley-server|parley)(?=\s|$)/)
        return starts.enumerated().map { index, start in
            let end = index + 1 < starts.count ? starts[index + 1].output.1.startIndex : code.endIndex
            var segment = String(code[start.range.upperBound..<end])
            if let comment = segment.firstMatch(of: /\s#/) { segment = String(segment[..<comment.range.lowerBound]) }
            if let separator = segment.firstMatch(of: /&&|\s&\s|;/) { segment = String(segment[..<separator.range.lowerBound]) }
            var depth = 0
            for (offset, character) in segment.enumerated() {
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if depth < 0 { segment = String(segment.prefix(offset)); break }
            }
            let tokens = segment.split(separator: " ")
            let words = tokens.prefix { !$0.hasPrefix("-") && !"[(|".contains($0.first!) }.map(String.init)
            return Invocation(program: String(start.output.1), words: words, flags: flags(in: segment),
                              text: String(start.output.1) + segment, place: place)
        }
    }
}
