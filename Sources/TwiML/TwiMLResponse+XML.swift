extension TwiMLResponse {
    /// The document as TwiML text, with an XML declaration. Attributes at their default value are
    /// left out, so parsing the result gives back an equal `TwiMLResponse`.
    public var xml: String {
        var w = XMLWriter()
        w.out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
        w.element("Response", [], children: verbs.isEmpty ? nil : { w in for verb in verbs { w.write(verb) } })
        return w.out
    }
}

/// Builds XML text with escaping (the inverse of `XMLReader`'s decoding).
struct XMLWriter {
    var out = ""

    /// Writes `<name a="v"…>` then `children` then `</name>`, or `<name …/>` when `children` is nil.
    mutating func element(_ name: String, _ attributes: [(String, String?)], children: ((inout XMLWriter) -> Void)? = nil) {
        out += "<" + name
        for case let (key, value?) in attributes { out += " \(key)=\"\(Self.escape(value, attribute: true))\"" }
        guard let children else {
            out += "/>"
            return
        }
        out += ">"
        children(&self)
        out += "</\(name)>"
    }

    mutating func element(_ name: String, _ attributes: [(String, String?)], text: String) {
        element(name, attributes) { $0.out += Self.escape(text, attribute: false) }
    }

    /// Escapes markup characters, and the whitespace that attribute-value normalization (§3.3.3) or
    /// line-end normalization (§2.11) would otherwise change.
    static func escape(_ text: String, attribute: Bool) -> String {
        var s = ""
        s.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": s += "&amp;"
            case "<": s += "&lt;"
            case ">": s += "&gt;"
            case "\"" where attribute: s += "&quot;"
            case "\r": s += "&#13;"
            case "\n" where attribute: s += "&#10;"
            case "\t" where attribute: s += "&#9;"
            default: s.unicodeScalars.append(scalar)
            }
        }
        return s
    }
}

extension XMLWriter {
    /// `value` unless it equals `defaultValue`.
    static func nonDefault<T: Equatable>(_ value: T, _ defaultValue: T, _ render: (T) -> String) -> String? {
        value == defaultValue ? nil : render(value)
    }

    static func int(_ value: Int, default d: Int) -> String? { nonDefault(value, d) { String($0) } }
    static func bool(_ value: Bool, default d: Bool) -> String? { nonDefault(value, d) { String($0) } }
    static func method(_ value: TwiMLMethod) -> String? { nonDefault(value, .post) { $0.rawValue } }
    static func events(_ values: [String]) -> String? { values.isEmpty ? nil : values.joined(separator: " ") }

    mutating func write(_ verb: TwiMLVerb) {
        switch verb {
        case .dial(let d): write(d)
        case .say(let s): write(s)
        case .play(let p): write(p)
        case .pause(let p): element("Pause", [("length", Self.int(p.length, default: 1))])
        case .gather(let g): write(g)
        case .record(let r):
            element("Record", [
                ("maxLength", Self.int(r.maxLength, default: 3600)), ("timeout", Self.int(r.timeout, default: 5)),
                ("finishOnKey", Self.nonDefault(r.finishOnKey, "1234567890*#") { $0 }), ("action", r.action),
                ("method", Self.method(r.method)), ("playBeep", Self.bool(r.playBeep, default: true)),
                ("trim", Self.nonDefault(r.trim, .trimSilence) { $0.rawValue }),
                ("recordingStatusCallback", r.recordingStatusCallback),
                ("recordingStatusCallbackMethod", Self.method(r.recordingStatusCallbackMethod)),
            ])
        case .hangup: element("Hangup", [])
        case .reject(let reason): element("Reject", [("reason", Self.nonDefault(reason, .rejected) { $0.rawValue })])
        case .redirect(let r): element("Redirect", [("method", Self.method(r.method))], text: r.url)
        }
    }

    mutating func write(_ s: TwiMLSay) {
        element("Say", [("voice", s.voice), ("language", s.language), ("loop", Self.int(s.loop, default: 1))], text: s.text)
    }

    mutating func write(_ p: TwiMLPlay) {
        let attributes = [("loop", Self.int(p.loop, default: 1)), ("digits", p.digits)]
        if let url = p.url { element("Play", attributes, text: url) } else { element("Play", attributes) }
    }

    mutating func write(_ g: TwiMLGather) {
        let attributes: [(String, String?)] = [
            ("input", Self.nonDefault(g.input, .dtmf) { $0.attributeValue }), ("numDigits", g.numDigits.map(String.init)),
            ("finishOnKey", Self.nonDefault(g.finishOnKey, "#") { $0 }), ("timeout", Self.int(g.timeout, default: 5)),
            ("action", g.action), ("method", Self.method(g.method)),
            ("actionOnEmptyResult", Self.bool(g.actionOnEmptyResult, default: false)),
        ]
        element("Gather", attributes, children: g.prompts.isEmpty ? nil : { w in
            for prompt in g.prompts {
                switch prompt {
                case .say(let s): w.write(s)
                case .play(let p): w.write(p)
                case .pause(let p): w.element("Pause", [("length", Self.int(p.length, default: 1))])
                }
            }
        })
    }

    mutating func write(_ d: TwiMLDial) {
        let attributes: [(String, String?)] = [
            ("action", d.action), ("method", Self.method(d.method)), ("timeout", Self.int(d.timeout, default: 30)),
            ("callerId", d.callerId), ("answerOnBridge", Self.bool(d.answerOnBridge, default: false)),
            ("record", Self.nonDefault(d.record, .doNotRecord) { $0.rawValue }),
            ("hangupOnStar", Self.bool(d.hangupOnStar, default: false)),
            ("timeLimit", Self.int(d.timeLimit, default: 14_400)), ("trim", Self.nonDefault(d.trim, .doNotTrim) { $0.rawValue }),
            ("recordingStatusCallback", d.recordingStatusCallback),
            ("recordingStatusCallbackMethod", Self.method(d.recordingStatusCallbackMethod)),
        ]
        element("Dial", attributes) { w in for noun in d.nouns { w.write(noun) } }
    }

    mutating func write(_ noun: TwiMLDialNoun) {
        switch noun {
        case .client(let c):
            let attributes = Self.legAttributes(url: c.url, method: c.method, statusCallback: c.statusCallback,
                                                statusCallbackMethod: c.statusCallbackMethod, events: c.statusCallbackEvents)
            guard !c.parameters.isEmpty else { return element("Client", attributes, text: c.identity) }
            element("Client", attributes) { w in
                w.element("Identity", [], text: c.identity)
                for p in c.parameters { w.element("Parameter", [("name", p.name), ("value", p.value)]) }
            }
        case .number(let n):
            element("Number", [("sendDigits", n.sendDigits), ("byoc", n.byoc)]
                        + Self.legAttributes(url: n.url, method: n.method, statusCallback: n.statusCallback,
                                             statusCallbackMethod: n.statusCallbackMethod, events: n.statusCallbackEvents),
                    text: n.number)
        case .sip(let s):
            element("Sip", [("username", s.username), ("password", s.password)]
                        + Self.legAttributes(url: s.url, method: s.method, statusCallback: s.statusCallback,
                                             statusCallbackMethod: s.statusCallbackMethod, events: s.statusCallbackEvents),
                    text: s.uri)
        case .conference(let c):
            element("Conference", [
                ("muted", Self.bool(c.muted, default: false)), ("beep", Self.nonDefault(c.beep, "true") { $0 }),
                ("startConferenceOnEnter", Self.bool(c.startConferenceOnEnter, default: true)),
                ("endConferenceOnExit", Self.bool(c.endConferenceOnExit, default: false)), ("waitUrl", c.waitUrl),
                ("waitMethod", Self.method(c.waitMethod)), ("maxParticipants", Self.int(c.maxParticipants, default: 250)),
                ("record", Self.nonDefault(c.record, "do-not-record") { $0 }), ("statusCallback", c.statusCallback),
                ("statusCallbackMethod", Self.method(c.statusCallbackMethod)),
                ("statusCallbackEvent", Self.events(c.statusCallbackEvents)), ("participantLabel", c.participantLabel),
            ], text: c.name)
        }
    }

    static func legAttributes(url: String?, method: TwiMLMethod, statusCallback: String?, statusCallbackMethod: TwiMLMethod,
                              events: [TwiMLCallEvent]) -> [(String, String?)] {
        [("url", url), ("method", Self.method(method)), ("statusCallback", statusCallback),
         ("statusCallbackMethod", Self.method(statusCallbackMethod)), ("statusCallbackEvent", Self.events(events.map(\.rawValue)))]
    }
}
