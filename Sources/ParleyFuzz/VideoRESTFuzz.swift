import HTTPWire
import JSONWire
import PlatformCore
import SFU
import VideoREST

/// Feeds text to the Video REST bodies' own parsers: subscribe and recording rules (plain and
/// `{"rules": …}`), video layouts, track-name patterns, and a form body read as a composition
/// request. Rules that parse must render back to JSON that parses to the same rules; a layout's
/// regions are in drawing order; a pattern always matches itself with its `*` taken literally.
enum VideoRESTFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        for dialect in [TrackRulesJSON.subscribe, TrackRulesJSON.recording] {
            for wrapped in [false, true] {
                guard let rules = TrackRulesJSON.parse(text, dialect, wrapped: wrapped) else { continue }
                let again = String(decoding: TrackRulesJSON.json(rules).serialized(), as: UTF8.self)
                precondition(TrackRulesJSON.parse(again, dialect) == rules, "rules do not survive their JSON")
            }
        }
        if let layout = VideoLayout.parse(text) {
            precondition(layout.regions.count <= VideoLayout.maxRegions, "too many regions")
            precondition(zip(layout.regions, layout.regions.dropFirst()).allSatisfy { $0.z <= $1.z }, "regions out of order")
        }
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if lines.count == 2, lines[0].utf8.count <= 256, lines[1].utf8.count <= 4096 {
            _ = SourcePattern.matches(lines[0], lines[1])
            if !lines[0].contains("*") { precondition(SourcePattern.matches(lines[0], lines[0]), "a name does not match itself") }
        }
        if let pairs = try? FormURLEncoding.decode(data, limits: FormURLEncoding.Limits(maxBytes: 1 << 16, maxPairs: 256)) {
            _ = try? VideoRESTRouter.compositionRequest(RESTParameters(pairs.map { (name: $0.0, value: $0.1) }), accountSid: "AC")
        }
    }
}
