/// A TwiML document: the verbs of its `<Response>` root, in order.
public struct TwiMLResponse: Sendable, Hashable {
    public var verbs: [TwiMLVerb]

    public init(verbs: [TwiMLVerb] = []) { self.verbs = verbs }

    /// Parses a document (UTF-8 bytes, as an HTTP body). Throws `TwiMLError` for malformed XML,
    /// exceeded limits, a root other than `<Response>`, unknown verbs or nouns, and bad attribute values.
    public init(parsing document: some Collection<UInt8>, limits: TwiMLLimits = TwiMLLimits()) throws(TwiMLError) {
        try self.init(element: try XMLReader.parse(document, limits: limits))
    }

    /// Parses a document given as text.
    public init(parsing document: String, limits: TwiMLLimits = TwiMLLimits()) throws(TwiMLError) {
        try self.init(parsing: Array(document.utf8), limits: limits)
    }

    /// Interprets an already-read root element.
    public init(element root: XMLReader.Element) throws(TwiMLError) {
        guard root.name == "Response" else {
            throw .invalid("the root element must be <Response>, not <\(root.name)>", at: root.offset)
        }
        try TwiMLContent.requireNoText(in: root)
        var verbs: [TwiMLVerb] = []
        for element in root.elements { verbs.append(try TwiMLVerb(element: element)) }
        self.verbs = verbs
    }
}

extension TwiMLVerb {
    /// Twilio verbs that Parley recognizes but does not execute.
    static let unsupported: Set<String> = [
        "Connect", "Echo", "Enqueue", "Leave", "Message", "Pay", "Prompt", "Queue", "Refer", "Sms", "Start", "Stop",
    ]

    init(element e: XMLReader.Element) throws(TwiMLError) {
        switch e.name {
        case "Dial": self = .dial(try TwiMLDial(element: e))
        case "Say": self = .say(try TwiMLSay(element: e))
        case "Play": self = .play(try TwiMLPlay(element: e))
        case "Pause": self = .pause(try TwiMLPause(element: e))
        case "Gather": self = .gather(try TwiMLGather(element: e))
        case "Record": self = .record(try TwiMLRecord(element: e))
        case "Hangup":
            try TwiMLContent.requireEmpty(e)
            self = .hangup
        case "Reject":
            try TwiMLContent.requireEmpty(e)
            self = .reject(try TwiMLAttributes(e).choice("reason", default: TwiMLRejectReason.rejected))
        case "Redirect": self = .redirect(try TwiMLRedirect(element: e))
        case let name where Self.unsupported.contains(name):
            throw .invalid("verb <\(name)> is not supported", at: e.offset)
        case let name:
            throw .invalid("unknown verb <\(name)>", at: e.offset)
        }
    }
}

/// Checks on what an element may contain.
enum TwiMLContent {
    static func requireNoText(in e: XMLReader.Element) throws(TwiMLError) {
        guard e.text.trimmingSpaces.isEmpty else { throw .invalid("<\(e.name)> may not contain text", at: e.offset) }
    }

    static func requireEmpty(_ e: XMLReader.Element) throws(TwiMLError) {
        try requireNoText(in: e)
        if let child = e.elements.first { throw .invalid("<\(e.name)> may not contain <\(child.name)>", at: child.offset) }
    }

    /// The trimmed text of an element that may contain only text.
    static func text(of e: XMLReader.Element, required: Bool) throws(TwiMLError) -> String {
        if let child = e.elements.first { throw .invalid("<\(e.name)> may not contain <\(child.name)>", at: child.offset) }
        let text = e.text.trimmingSpaces
        if required && text.isEmpty { throw .invalid("<\(e.name)> needs text content", at: e.offset) }
        return text
    }
}

extension TwiMLSay {
    /// SSML elements allowed inside `<Say>`; their text is spoken, the markup is dropped.
    static let ssml: Set<String> = [
        "break", "emphasis", "lang", "p", "phoneme", "prosody", "s", "say-as", "sub", "w", "amazon:domain", "amazon:effect",
    ]

    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        let text = try Self.flatten(e).trimmingSpaces
        guard !text.isEmpty else { throw .invalid("<Say> needs text to speak", at: e.offset) }
        self.init(text: text, voice: a.string("voice"), language: a.string("language"),
                  loop: try a.int("loop", default: 1, in: 0...1000))
    }

    private static func flatten(_ e: XMLReader.Element) throws(TwiMLError) -> String {
        var out = ""
        for child in e.children {
            switch child {
            case .text(let t): out += t
            case .element(let c):
                guard ssml.contains(c.name) else { throw .invalid("<Say> may not contain <\(c.name)>", at: c.offset) }
                out += try flatten(c)
            }
        }
        return out
    }
}

extension TwiMLPlay {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        let url = try TwiMLContent.text(of: e, required: false)
        let digits = try a.keys("digits", waits: true)
        guard url.isEmpty != (digits == nil) else {
            throw .invalid("<Play> needs either a URL or a digits attribute, not both", at: e.offset)
        }
        self.init(url: url.isEmpty ? nil : url, loop: try a.int("loop", default: 1, in: 0...1000), digits: digits)
    }
}

extension TwiMLPause {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        try TwiMLContent.requireEmpty(e)
        self.init(length: try TwiMLAttributes(e).int("length", default: 1, in: 0...3600))
    }
}

extension TwiMLRedirect {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        self.init(url: try TwiMLContent.text(of: e, required: true), method: try TwiMLAttributes(e).method())
    }
}

extension TwiMLGather {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        try TwiMLContent.requireNoText(in: e)
        var prompts: [TwiMLGatherPrompt] = []
        for child in e.elements {
            switch child.name {
            case "Say": prompts.append(.say(try TwiMLSay(element: child)))
            case "Play": prompts.append(.play(try TwiMLPlay(element: child)))
            case "Pause": prompts.append(.pause(try TwiMLPause(element: child)))
            default: throw .invalid("<Gather> may not contain <\(child.name)>", at: child.offset)
            }
        }
        let finishOnKey = a.raw("finishOnKey")?.trimmingSpaces ?? "#"
        guard finishOnKey.isEmpty || (finishOnKey.count == 1 && "0123456789*#".contains(finishOnKey)) else {
            throw .invalid("<Gather> attribute finishOnKey=\"\(finishOnKey.prefix(20))\" is not valid: expected one key or nothing",
                           at: e.offset)
        }
        var input: TwiMLGatherInput = []
        for word in try a.words("input", allowed: ["dtmf", "speech"]) { input.insert(word == "dtmf" ? .dtmf : .speech) }
        self.init(numDigits: try a.optionalInt("numDigits", in: 1...256), finishOnKey: finishOnKey,
                  timeout: try a.int("timeout", default: 5, in: 0...600), action: a.string("action"), method: try a.method(),
                  input: input.isEmpty ? .dtmf : input,
                  actionOnEmptyResult: try a.bool("actionOnEmptyResult", default: false), prompts: prompts)
    }
}

extension TwiMLRecord {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        try TwiMLContent.requireEmpty(e)
        let a = TwiMLAttributes(e)
        let finishOnKey = a.raw("finishOnKey")?.trimmingSpaces ?? "1234567890*#"
        guard finishOnKey.count <= 12, finishOnKey.allSatisfy({ "0123456789*#".contains($0) }) else {
            throw .invalid("<Record> attribute finishOnKey=\"\(finishOnKey.prefix(20))\" is not valid: expected DTMF keys",
                           at: e.offset)
        }
        self.init(maxLength: try a.int("maxLength", default: 3600, in: 1...86_400),
                  timeout: try a.int("timeout", default: 5, in: 0...3600), finishOnKey: finishOnKey,
                  action: a.string("action"), method: try a.method(), playBeep: try a.bool("playBeep", default: true),
                  trim: try a.choice("trim", default: TwiMLTrim.trimSilence),
                  recordingStatusCallback: a.string("recordingStatusCallback"),
                  recordingStatusCallbackMethod: try a.method("recordingStatusCallbackMethod"))
    }
}
