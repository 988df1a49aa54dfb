import TwiML

/// Feeds bytes to the TwiML parser; a document that parses must serialize and re-parse to an
/// equal value with identical text. It is then run through the interpreter with events drawn from
/// the input, which must never trap and must finish or wait within a bounded number of steps.
enum TwiMLFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        _ = try? XMLReader.parse(bytes)
        guard let parsed = try? TwiMLResponse(parsing: bytes) else { return }
        let xml = parsed.xml
        // Serializing may add elements (a text number becomes <Number>), so re-parse with room to spare.
        let roomy = TwiMLLimits(maxDocumentBytes: 1 << 22, maxElements: 1 << 16)
        guard let reparsed = try? TwiMLResponse(parsing: xml, limits: roomy),
              reparsed == parsed, reparsed.xml == xml else {
            fatalError("TwiML parse -> serialize -> parse is unstable")
        }
        interpret(parsed, events: bytes)
    }

    /// Drives an interpreter with one event per input byte (at most 256), on a virtual clock.
    static func interpret(_ document: TwiMLResponse, events: [UInt8]) {
        let url = "https://fuzz.example/twiml/start"
        var interpreter = TwiMLInterpreter(document: document, documentURL: url, maxFetches: 8)
        var now: Int64 = 0
        _ = interpreter.start(now: now)
        for byte in events.prefix(256) where !interpreter.isFinished {
            now += Int64(byte) * 37
            let event: TwiMLEvent
            switch byte % 8 {
            case 0: event = .mediaFinished
            case 1: event = .digit(Array("0123456789*#")[Int(byte / 8) % 12])
            case 2: event = .dialCompleted(DialOutcome(status: DialCallStatus.allCases[Int(byte / 8) % 5], callSid: "CA1",
                                                       duration: Int(byte)))
            case 3: event = .recordingFinished(url: "https://rec/1", duration: Int(byte / 8), digits: "#", sid: "RE1")
            case 4: event = .documentFetched(document, url: "../next/\(byte)")
            case 5: event = .fetchFailed(reason: "fuzz")
            case 6: event = .redirect(url: "?r=\(byte)", method: byte & 0x10 == 0 ? .post : .get)
            default:
                if let deadline = interpreter.nextDeadline { now = max(now, deadline) }
                _ = interpreter.tick(now: now)
                continue
            }
            _ = interpreter.handle(event, now: now)
        }
    }
}
