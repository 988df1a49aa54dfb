import JSONWire

/// A composition's video layout (Twilio's `VideoLayout`): named regions of the canvas, each
/// showing the video tracks its sources name, tiled in a grid. A region without a position or
/// size covers the whole canvas; regions are drawn from the lowest `z_pos` up.
///
/// `{"grid": {"video_sources": ["*"]}}` is one full-canvas grid of every video track;
/// `{"main": {"z_pos": 1, "video_sources": ["screen"]}, "pip": {"x_pos": 480, "y_pos": 360,
/// "width": 160, "height": 120, "z_pos": 2, "video_sources": ["alice*"]}}` a picture in picture.
package struct VideoLayout: Sendable, Equatable {
    package struct Region: Sendable, Equatable {
        package var name: String
        package var x = 0, y = 0
        /// Nil: to the canvas' right or bottom edge.
        package var width: Int?
        package var height: Int?
        package var z = 0
        /// Most columns and rows of the region's grid (nil: as many as the tiles need).
        package var maxColumns: Int?
        package var maxRows: Int?
        /// Track names (or `MT…`/`RT…` SIDs), `*` matching any run of characters.
        package var videoSources: [String] = []
        package var videoSourcesExcluded: [String] = []
        /// `none`, `show_oldest` or `show_newest`: which tracks keep a cell when more match than fit.
        package var reuse = "show_oldest"
    }

    /// In the order they are drawn: by `z_pos`, then as the request listed them.
    package var regions: [Region]

    package static let maxRegions = 16
    package static let maxSources = 64

    /// Parses the request's `VideoLayout` (a JSON object); nil when it is not one this server
    /// composes. Pure and bounded: 16 KiB of text, depth 4, 16 regions, 64 sources each.
    package static func parse(_ text: String) -> VideoLayout? {
        guard text.utf8.count <= 16_384, case .object(let object)? = try? JSONValue.parse(Array(text.utf8), maxDepth: 4),
              object.keys.count <= maxRegions else { return nil }
        var regions: [Region] = []
        for name in object.keys {
            guard !name.isEmpty, name.utf8.count <= 64, case .object(let fields)? = object[name],
                  let region = region(name, fields) else { return nil }
            regions.append(region)
        }
        let ordered = regions.enumerated().sorted { ($0.element.z, $0.offset) < ($1.element.z, $1.offset) }.map(\.element)
        return VideoLayout(regions: ordered)
    }

    private static func region(_ name: String, _ fields: JSONObject) -> Region? {
        var region = Region(name: name)
        for key in fields.keys {
            let value = fields[key] ?? .null
            switch key {
            case "x_pos": guard let n = int(value, 0...10_000) else { return nil }; region.x = n
            case "y_pos": guard let n = int(value, 0...10_000) else { return nil }; region.y = n
            case "z_pos": guard let n = int(value, -99...99) else { return nil }; region.z = n
            case "width": guard let n = int(value, 1...10_000) else { return nil }; region.width = n
            case "height": guard let n = int(value, 1...10_000) else { return nil }; region.height = n
            case "max_columns": guard let n = int(value, 1...1_000) else { return nil }; region.maxColumns = n
            case "max_rows": guard let n = int(value, 1...1_000) else { return nil }; region.maxRows = n
            case "reuse":
                guard case .string(let s) = value, ["none", "show_oldest", "show_newest"].contains(s) else { return nil }
                region.reuse = s
            case "video_sources": guard let list = names(value) else { return nil }; region.videoSources = list
            case "video_sources_excluded": guard let list = names(value) else { return nil }; region.videoSourcesExcluded = list
            case "cells_excluded":
                guard case .array(let cells) = value, cells.count <= maxSources,
                      cells.allSatisfy({ int($0, 0...10_000) != nil }) else { return nil }
            default: return nil
            }
        }
        return region
    }

    private static func int(_ value: JSONValue, _ range: ClosedRange<Int>) -> Int? {
        guard case .integer(let n) = value, n >= Int64(range.lowerBound), n <= Int64(range.upperBound) else { return nil }
        return Int(n)
    }

    private static func names(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value, items.count <= maxSources else { return nil }
        var names: [String] = []
        for item in items {
            guard case .string(let s) = item, !s.isEmpty, s.utf8.count <= 256, !s.contains("\n") else { return nil }
            names.append(s)
        }
        return names
    }
}

/// Twilio's source names: a track name (or SID) where `*` matches any run of characters.
package enum SourcePattern {
    /// Whether any of `patterns` matches any of `names` (a track's name, its `MT…`, its `RT…`).
    package static func matches(_ patterns: [String], _ names: [String]) -> Bool {
        patterns.contains { pattern in names.contains { matches(pattern, $0) } }
    }

    /// Glob matching with `*` only, iterative (no backtracking blow-up: O(pattern × name)).
    package static func matches(_ pattern: String, _ name: String) -> Bool {
        let p = Array(pattern.unicodeScalars), s = Array(name.unicodeScalars)
        var (pi, si) = (0, 0)
        var star: Int?, mark = 0
        while si < s.count {
            if pi < p.count, p[pi] != "*", p[pi] == s[si] {
                pi += 1
                si += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = si
                pi += 1
            } else if let star {
                pi = star + 1
                mark += 1
                si = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
