/// Executes TwiML for one call, as Twilio does, as a value-type state machine: the engine feeds it
/// events and the time (milliseconds of a monotonic clock) and carries out the actions it returns.
///
/// The engine calls `start(now:)` once, `handle(_:now:)` for each event, and `tick(now:)` when
/// `nextDeadline` passes (pauses and `<Gather>` timeouts). Events that do not fit the current verb
/// are ignored. After `.hangup` or `.reject` the interpreter `isFinished`.
public struct TwiMLInterpreter: Sendable {
    /// The document being executed.
    public private(set) var document: TwiMLResponse
    /// The URL of that document; relative URLs resolve against it (RFC 3986 §5.2).
    public private(set) var documentURL: String
    /// Why the call ended with an error (fetch failure, fetch limit), for the engine to report.
    public private(set) var failureReason: String?
    /// Documents requested with `.fetch` so far.
    public private(set) var fetchCount = 0
    /// Whether `.answer` has been emitted (or a bridged `<Dial answerOnBridge>` answered the call).
    public private(set) var isAnswered = false
    /// Cap on `.fetch` per call, which stops `<Redirect>` loops.
    public let maxFetches: Int

    var verbIndex = 0
    var phase: Phase = .notStarted
    /// A `<Dial answerOnBridge>` ended without the call being answered.
    var answerOnBridgeDialFailed = false

    enum Phase: Sendable {
        case notStarted
        case playing
        case pausing(until: Int64)
        case gathering(GatherState)
        case dialing(TwiMLDial)
        case recording(TwiMLRecord)
        case fetching
        case finished
    }

    public init(document: TwiMLResponse, documentURL: String, maxFetches: Int = 100) {
        self.document = document
        self.documentURL = documentURL
        self.maxFetches = maxFetches
    }

    public var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// When `tick(now:)` must be called next, if anything is waiting on time.
    public var nextDeadline: Int64? {
        switch phase {
        case .pausing(let until): until
        case .gathering(let g): [g.pauseUntil, g.deadline].compactMap { $0 }.min()
        default: nil
        }
    }

    /// Runs the document from its first verb.
    public mutating func start(now: Int64) -> [TwiMLAction] {
        guard case .notStarted = phase else { return [] }
        var actions: [TwiMLAction] = []
        runVerbs(now: now, into: &actions)
        return actions
    }

    public mutating func handle(_ event: TwiMLEvent, now: Int64) -> [TwiMLAction] {
        var actions: [TwiMLAction] = []
        switch (event, phase) {
        case (.mediaFinished, .playing):
            next(now: now, into: &actions)
        case (.mediaFinished, .gathering(var g)) where g.playing:
            g.playing = false
            g.promptIndex += 1
            continuePrompts(&g, now: now, into: &actions)
            phase = .gathering(g)
        case (.digit(let key), .gathering(let g)):
            gatherDigit(key, g, now: now, into: &actions)
        case (.dialCompleted(let outcome), .dialing(let dial)):
            if dial.answerOnBridge && outcome.status == .completed { isAnswered = true }
            if dial.answerOnBridge && !isAnswered { answerOnBridgeDialFailed = true }
            if let action = dial.action {
                fetch(resolve(action), dial.method, outcome.actionParameters, into: &actions)
            } else {
                next(now: now, into: &actions)
            }
        case let (.recordingFinished(url, duration, digits, sid, errorCode), .recording(record)):
            let parameters: [(String, String)]
            if let errorCode {
                // Not written: the action hears of it (RecordingStatus as in Twilio's recording callbacks).
                parameters = [("RecordingSid", sid), ("RecordingDuration", "0"), ("Digits", digits),
                              ("RecordingStatus", "failed"), ("ErrorCode", String(errorCode))]
            } else {
                // Twilio skips the action for an empty recording and continues with the next verb.
                guard duration > 0, !url.isEmpty else { return nextActions(now: now) }
                parameters = [("RecordingUrl", url), ("RecordingDuration", String(duration)), ("RecordingSid", sid),
                              ("Digits", digits)]
            }
            fetch(resolve(record.action ?? documentURL), record.method, parameters, into: &actions)
        case let (.documentFetched(newDocument, url), .fetching):
            document = newDocument
            documentURL = url
            verbIndex = 0
            runVerbs(now: now, into: &actions)
        case (.fetchFailed(let reason), .fetching):
            fail(reason, into: &actions)
        case let (.redirect(url, method), _) where !isFinished:
            abandonCurrentVerb(into: &actions)
            fetch(resolve(url), method, [], into: &actions)
        case let (.replace(newDocument), _) where !isFinished:
            abandonCurrentVerb(into: &actions)
            document = newDocument
            verbIndex = 0
            runVerbs(now: now, into: &actions)
        default:
            break
        }
        return actions
    }

    /// The call ended while a `<Dial>` (of clients or a conference) was running — the caller hung
    /// up, or the REST API or the server ended it: the dial's `action` request Twilio makes
    /// whenever a `<Dial>` ends, with `outcome`. Its answer is not executed (the call is over).
    /// Nil when no `<Dial>` with an `action` was running. The interpreter is finished afterwards.
    public mutating func callEnded(duringDial outcome: DialOutcome) -> TwiMLAction? {
        defer { phase = .finished }
        guard case .dialing(let dial) = phase, let action = dial.action, fetchCount < maxFetches else { return nil }
        fetchCount += 1
        return .fetch(url: resolve(action), method: dial.method, parameters: outcome.actionParameters)
    }

    /// Stops what the current verb started (a REST update takes the call elsewhere).
    private func abandonCurrentVerb(into actions: inout [TwiMLAction]) {
        switch phase {
        case .playing: actions.append(.stopMedia)
        case .gathering(let g) where g.playing: actions.append(.stopMedia)
        case .dialing: actions.append(.cancelDial)
        case .recording: actions.append(.stopRecording)
        default: break
        }
    }

    /// Fires the pause or `<Gather>` deadline when `now` has reached it.
    public mutating func tick(now: Int64) -> [TwiMLAction] {
        var actions: [TwiMLAction] = []
        switch phase {
        case .pausing(let until) where now >= until:
            next(now: now, into: &actions)
        case .gathering(let g):
            gatherTick(g, now: now, into: &actions)
        default:
            break
        }
        return actions
    }

    // MARK: - Verbs

    /// Runs verbs from `verbIndex` until one waits for an event or time, or the call ends.
    mutating func runVerbs(now: Int64, into actions: inout [TwiMLAction]) {
        while verbIndex < document.verbs.count {
            if execute(document.verbs[verbIndex], now: now, into: &actions) { return }
            verbIndex += 1
        }
        actions.append(.hangup)
        phase = .finished
    }

    /// Continues with the verb after the current one.
    mutating func next(now: Int64, into actions: inout [TwiMLAction]) {
        verbIndex += 1
        runVerbs(now: now, into: &actions)
    }

    private mutating func nextActions(now: Int64) -> [TwiMLAction] {
        var actions: [TwiMLAction] = []
        next(now: now, into: &actions)
        return actions
    }

    /// Starts one verb; returns true when the interpreter now waits (or has finished).
    private mutating func execute(_ verb: TwiMLVerb, now: Int64, into actions: inout [TwiMLAction]) -> Bool {
        switch verb {
        case .say(let say):
            answer(into: &actions)
            actions.append(sayAction(say))
            phase = .playing
        case .play(let play):
            answer(into: &actions)
            actions.append(playAction(play))
            phase = .playing
        case .pause(let pause):
            guard pause.length > 0 else { return false }
            phase = .pausing(until: now + Int64(pause.length) * 1000)
        case .gather(let gather):
            answer(into: &actions)
            var g = GatherState(gather: gather)
            continuePrompts(&g, now: now, into: &actions)
            phase = .gathering(g)
        case .dial(let dial):
            if !dial.answerOnBridge { answer(into: &actions) }
            actions.append(.dial(DialRequest(dial, documentURL: documentURL)))
            phase = .dialing(dial)
        case .record(let record):
            answer(into: &actions)
            actions.append(.record(RecordRequest(record, documentURL: documentURL)))
            phase = .recording(record)
        case .hangup:
            // Twilio answers, then completes the call (a call that never rang through a
            // `<Dial answerOnBridge>` is the exception: it ends as that dial did).
            if !answerOnBridgeDialFailed { answer(into: &actions) }
            actions.append(.hangup)
            phase = .finished
        case .reject(let reason):
            // Reject only means something before the call is answered; afterwards it hangs up.
            actions.append(isAnswered ? .hangup : .reject(reason: reason))
            phase = .finished
        case .redirect(let redirect):
            fetch(resolve(redirect.url), redirect.method, [], into: &actions)
        }
        return true
    }

    mutating func answer(into actions: inout [TwiMLAction]) {
        guard !isAnswered else { return }
        isAnswered = true
        actions.append(.answer)
    }

    func sayAction(_ say: TwiMLSay) -> TwiMLAction {
        .say(text: say.text, voice: say.voice, language: say.language, loop: say.loop == 0 ? 1000 : say.loop)
    }

    func playAction(_ play: TwiMLPlay) -> TwiMLAction {
        if let url = play.url { return .play(url: resolve(url), loop: play.loop == 0 ? 1000 : play.loop) }
        return .playDigits(play.digits ?? "")
    }

    func resolve(_ url: String) -> String { URIReference.resolve(url, against: documentURL) }

    /// Requests the next document, unless the per-call cap is reached.
    mutating func fetch(_ url: String, _ method: TwiMLMethod, _ parameters: [(String, String)],
                        into actions: inout [TwiMLAction]) {
        guard fetchCount < maxFetches else {
            return fail("more than \(maxFetches) TwiML documents requested in one call (a <Redirect> loop?)", into: &actions)
        }
        fetchCount += 1
        actions.append(.fetch(url: url, method: method, parameters: parameters))
        phase = .fetching
    }

    mutating func fail(_ reason: String, into actions: inout [TwiMLAction]) {
        failureReason = reason
        actions.append(.hangup)
        phase = .finished
    }
}
