extension TwiMLDial {
    /// Twilio nouns that Parley recognizes but cannot dial.
    static let unsupportedNouns: Set<String> = ["Application", "Queue", "Sim", "WhatsApp"]
    /// Twilio rings at most 10 nouns at once.
    static let maxNouns = 10

    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        var nouns: [TwiMLDialNoun] = []
        let text = e.text.trimmingSpaces
        if let first = e.elements.first {
            guard text.isEmpty else { throw .invalid("<Dial> may not mix a text number with <\(first.name)>", at: e.offset) }
            for child in e.elements { nouns.append(try Self.noun(child)) }
        } else if !text.isEmpty {
            nouns = [.number(TwiMLNumber(number: text))]
        } else {
            throw .invalid("<Dial> needs a number, <Client>, <Number>, <Sip> or <Conference>", at: e.offset)
        }
        guard nouns.count <= Self.maxNouns else {
            throw .invalid("<Dial> may ring at most \(Self.maxNouns) nouns", at: e.offset)
        }
        if nouns.count > 1, nouns.contains(where: { if case .conference = $0 { true } else { false } }) {
            throw .invalid("<Conference> must be the only noun in its <Dial>", at: e.offset)
        }
        let record: TwiMLDialRecord
        switch a.string("record")?.lowercased() {
        case "true": record = .recordFromAnswer
        case "false": record = .doNotRecord
        default: record = try a.choice("record", default: TwiMLDialRecord.doNotRecord)
        }
        self.init(nouns: nouns, action: a.string("action"), method: try a.method(),
                  timeout: try a.int("timeout", default: 30, in: 1...600), callerId: a.string("callerId"),
                  answerOnBridge: try a.bool("answerOnBridge", default: false), record: record,
                  hangupOnStar: try a.bool("hangupOnStar", default: false),
                  timeLimit: try a.int("timeLimit", default: 14_400, in: 1...86_400),
                  trim: try a.choice("trim", default: TwiMLTrim.doNotTrim),
                  recordingStatusCallback: a.string("recordingStatusCallback"),
                  recordingStatusCallbackMethod: try a.method("recordingStatusCallbackMethod"))
    }

    static func noun(_ e: XMLReader.Element) throws(TwiMLError) -> TwiMLDialNoun {
        switch e.name {
        case "Client": return .client(try TwiMLClient(element: e))
        case "Number": return .number(try TwiMLNumber(element: e))
        case "Sip": return .sip(try TwiMLSip(element: e))
        case "Conference": return .conference(try TwiMLConference(element: e))
        case let name where unsupportedNouns.contains(name):
            throw .invalid("noun <\(name)> is not supported in <Dial>", at: e.offset)
        case let name:
            throw .invalid("unknown noun <\(name)> in <Dial>", at: e.offset)
        }
    }
}

extension TwiMLClient {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        var identity = e.text.trimmingSpaces
        var parameters: [TwiMLParameter] = []
        var sawIdentity = false
        for child in e.elements {
            switch child.name {
            case "Identity":
                guard !sawIdentity, identity.isEmpty else {
                    throw .invalid("<Client> has more than one identity", at: child.offset)
                }
                sawIdentity = true
                identity = try TwiMLContent.text(of: child, required: true)
            case "Parameter":
                try TwiMLContent.requireEmpty(child)
                let p = TwiMLAttributes(child)
                guard let name = p.string("name") else { throw .invalid("<Parameter> needs a name", at: child.offset) }
                parameters.append(TwiMLParameter(name: name, value: p.raw("value") ?? ""))
            default:
                throw .invalid("<Client> may not contain <\(child.name)>", at: child.offset)
            }
        }
        guard !identity.isEmpty else { throw .invalid("<Client> needs an identity", at: e.offset) }
        self.init(identity: identity, parameters: parameters, url: a.string("url"), method: try a.method(),
                  statusCallback: a.string("statusCallback"),
                  statusCallbackMethod: try a.method("statusCallbackMethod"), statusCallbackEvents: try a.callEvents())
    }
}

extension TwiMLNumber {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        self.init(number: try TwiMLContent.text(of: e, required: true), sendDigits: try a.keys("sendDigits", waits: true),
                  byoc: a.string("byoc"), url: a.string("url"), method: try a.method(), statusCallback: a.string("statusCallback"),
                  statusCallbackMethod: try a.method("statusCallbackMethod"), statusCallbackEvents: try a.callEvents())
    }
}

extension TwiMLSip {
    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        let uri = try TwiMLContent.text(of: e, required: true)
        guard uri.lowercased().hasPrefix("sip:") || uri.lowercased().hasPrefix("sips:") else {
            throw .invalid("<Sip> needs a sip: or sips: URI", at: e.offset)
        }
        self.init(uri: uri, username: a.string("username"), password: a.raw("password"), url: a.string("url"),
                  method: try a.method(), statusCallback: a.string("statusCallback"),
                  statusCallbackMethod: try a.method("statusCallbackMethod"), statusCallbackEvents: try a.callEvents())
    }
}

extension TwiMLConference {
    static let events = ["start", "end", "join", "leave", "mute", "hold", "modify", "speaker", "announcement"]

    init(element e: XMLReader.Element) throws(TwiMLError) {
        let a = TwiMLAttributes(e)
        self.init(name: try TwiMLContent.text(of: e, required: true), muted: try a.bool("muted", default: false),
                  beep: try a.word("beep", default: "true", allowed: ["true", "false", "onEnter", "onExit"]),
                  startConferenceOnEnter: try a.bool("startConferenceOnEnter", default: true),
                  endConferenceOnExit: try a.bool("endConferenceOnExit", default: false), waitUrl: a.string("waitUrl"),
                  waitMethod: try a.method("waitMethod"), maxParticipants: try a.int("maxParticipants", default: 250, in: 2...250),
                  record: try a.word("record", default: "do-not-record", allowed: ["do-not-record", "record-from-start"]),
                  statusCallback: a.string("statusCallback"), statusCallbackMethod: try a.method("statusCallbackMethod"),
                  statusCallbackEvents: try a.words("statusCallbackEvent", allowed: Self.events),
                  participantLabel: a.string("participantLabel"))
    }
}
