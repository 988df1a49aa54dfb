import Foundation
import ParleyTestSupport
import Testing

/// Every flag README.md and docs/*.md show on a `parley` or `parley-server` command line still
/// exists: it appears in that command's synopsis in `parley help` (or in `parley-server --help`).
/// Command lines are read from fenced code blocks (with their indented continuation lines) and
/// inline code spans; a line ends at the next command, a shell separator or a comment.
@Suite(.tags(.process)) struct DocumentedFlagsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everyDocumentedParleyFlagIsInTheHelp() async throws {
        let help = try await Self.output(of: try CLITestBed.parley, ["help"])
        let synopses = DocumentedCommands.synopses(inUsage: help)
        #expect(synopses["call"]?.contains("--ice-server") == true, "the usage parser found no call synopsis: \(synopses)")
        var checked = 0
        for invocation in try Self.documentedInvocations() where invocation.program == "parley" {
            guard let command = invocation.words.first else { continue }
            let key = invocation.words.count > 1 && synopses["\(command) \(invocation.words[1])"] != nil
                ? "\(command) \(invocation.words[1])" : command
            // `parley apps create|list|delete`: all of the command's synopses.
            let family = synopses.filter { $0.key.hasPrefix("\(command) ") }.values.flatMap { $0 }
            guard let known = synopses[key] ?? (family.isEmpty ? nil : family) else {
                Issue.record("\(invocation.place): `parley \(command)` is not a command of `parley help`: \(invocation.text)")
                continue
            }
            for flag in invocation.flags where !known.contains(flag) {
                Issue.record("\(invocation.place): `parley \(key) \(flag)` is documented but not in `parley help`: \(invocation.text)")
            }
            checked += invocation.flags.count
        }
        #expect(checked > 50, "only \(checked) documented flags found: is the parser reading the docs?")
    }

    @Test func everyDocumentedServerFlagIsInItsHelp() async throws {
        let help = try await Self.output(of: try BuiltProducts.path("parley-server"), ["--help"])
        let known = DocumentedCommands.flags(in: help)
        var checked = 0
        for invocation in try Self.documentedInvocations() where invocation.program == "parley-server" {
            for flag in invocation.flags where !known.contains(flag) {
                Issue.record("\(invocation.place): `parley-server \(flag)` is documented but not in `parley-server --help`: \(invocation.text)")
            }
            checked += invocation.flags.count
        }
        #expect(checked > 15, "only \(checked) documented server flags found: is the parser reading the docs?")
    }

    @Test func theParserSeesFlagsDroppedFromTheUsage() {
        let usage = """
            Calls:
              parley call TO [--param KEY=VALUE]... [--duration SECONDS]
                             [--app AP...] --server URL
                  Call TO; --relay in the description is not a flag of the synopsis.
              parley keys create [--name NAME]
              parley keys list
            """
        let synopses = DocumentedCommands.synopses(inUsage: usage)
        #expect(synopses["call"] == ["--param", "--duration", "--app", "--server"])
        #expect(synopses["keys create"] == ["--name"])
        #expect(synopses["keys list"] == [])
        let documented = DocumentedCommands.invocations(inMarkdown: """
            ```
            parley call bob --server URL [--outgoing-app AP…]   # a comment --not-a-flag
                        [--duration S]
            parley keys list | parley keys revoke SK…
            .build/debug/parley listen --identity parley \\
              --reject
            ```
            Run `parley listen --identity bob & parley call bob --play x.wav` or `TOKEN=$(parley token voice --identity a) curl --data`.
            """, file: "test.md")
        #expect(documented.map(\.flags) == [["--server", "--outgoing-app", "--duration"], [], [], ["--identity", "--reject"],
                                             ["--identity"], ["--play"], ["--identity"]])
        #expect(documented.map { $0.words.joined(separator: " ") }
                == ["call bob", "keys list", "keys revoke SK…", "listen", "listen", "call bob", "token voice"])
    }

    static func documentedInvocations() throws -> [DocumentedCommands.Invocation] {
        let docs = packageRoot.appendingPathComponent("docs")
        let files = [packageRoot.appendingPathComponent("README.md")]
            + (try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)).filter { $0.pathExtension == "md" }
        return try files.sorted { $0.path < $1.path }.flatMap { file in
            DocumentedCommands.invocations(inMarkdown: try String(contentsOf: file, encoding: .utf8), file: file.lastPathComponent)
        }
    }

    /// Standard output and error of a short command.
    static func output(of path: String, _ arguments: [String]) async throws -> String {
        let process = try CLIProcess.start(path, arguments, captureStandardError: true)
        #expect(await process.exitStatus() == 0, "\(path) \(arguments) failed: \(process.output)")
        return process.output
    }
}
