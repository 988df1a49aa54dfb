import JSONWire
import SFU

/// The vendor's track rules in JSON, shared by subscribe rules and recording rules:
/// `[{"type": "include", "all": true}, {"type": "exclude", "kind": "video"}]`. Pure and bounded:
/// the text at most 16 KiB, depth 4, at most `maxRules` rules, each a `type` and known filters.
package enum TrackRulesJSON {
    /// What one kind of rules allows.
    package struct Dialect: Sendable {
        var maxRules: Int
        var kinds: Set<String>
        var priority: Bool
        /// Twilio's recording rules (53120): `all` only as `true` and alone, and never `[]`.
        var strictAll: Bool
    }

    package static let subscribe = Dialect(maxRules: 50, kinds: ["audio", "video", "data"], priority: true, strictAll: false)
    package static let recording = Dialect(maxRules: 20, kinds: ["audio", "video"], priority: false, strictAll: true)

    /// The rules of a JSON array (or, when `wrapped`, of `{"rules": [...]}`), nil when invalid.
    package static func parse(_ text: String, _ dialect: Dialect, wrapped: Bool = false) -> [SubscribeRules.Rule]? {
        guard text.utf8.count <= 16_384, let value = try? JSONValue.parse(Array(text.utf8), maxDepth: 5) else { return nil }
        var list = value
        if wrapped, case .object(let o) = value {
            guard o.keys.count == 1, let inner = o["rules"] else { return nil }
            list = inner
        }
        guard case .array(let items) = list, items.count <= dialect.maxRules, !(dialect.strictAll && items.isEmpty) else {
            return nil
        }
        var rules: [SubscribeRules.Rule] = []
        for item in items {
            guard case .object(let o) = item, case .string(let type)? = o["type"],
                  let action = SubscribeRules.Rule.Action(rawValue: type) else { return nil }
            var rule = SubscribeRules.Rule(action: action)
            for key in o.keys where key != "type" {
                switch (key, o[key] ?? .null) {
                case ("all", .bool(let b)) where !dialect.strictAll || (b && o.keys.count == 2): rule.all = b
                case ("publisher", .string(let s)): rule.publisher = s
                case ("track", .string(let s)): rule.track = s
                case ("kind", .string(let s)) where dialect.kinds.contains(s): rule.kind = s
                case ("priority", .string(let s)) where dialect.priority && ["low", "standard", "high"].contains(s): rule.priority = s
                default: return nil
                }
            }
            guard rule.all || rule.publisher != nil || rule.track != nil || rule.kind != nil || rule.priority != nil else { return nil }
            rules.append(rule)
        }
        return rules
    }

    package static func json(_ rules: [SubscribeRules.Rule]) -> JSONValue {
        .array(rules.map { rule in
            var o: JSONObject = ["type": .string(rule.action.rawValue)]
            if rule.all { o["all"] = .bool(true) }
            if let v = rule.publisher { o["publisher"] = .string(v) }
            if let v = rule.track { o["track"] = .string(v) }
            if let v = rule.kind { o["kind"] = .string(v) }
            if let v = rule.priority { o["priority"] = .string(v) }
            return .object(o)
        })
    }
}

/// Recording rules in the vendor's JSON (Twilio's RecordingRules `Rules`, and the room's
/// `RecordingRules` parameter, which may wrap them as `{"rules": [...]}`); invalid rules are 53120.
package enum RecordingRulesJSON {
    package static func parse(_ text: String, wrapped: Bool = false) -> RecordingRules? {
        TrackRulesJSON.parse(text, TrackRulesJSON.recording, wrapped: wrapped).map(RecordingRules.init)
    }

    package static func json(_ rules: RecordingRules) -> JSONValue { TrackRulesJSON.json(rules.rules) }

    /// The JSON text the store keeps.
    package static func text(_ rules: RecordingRules) -> String { String(decoding: json(rules).serialized(), as: UTF8.self) }
}
