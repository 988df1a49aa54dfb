import ParleyCore
import ParleyStore
import PlatformCore
import ServerMedia
import TwiML

extension VoiceService {
    /// Fetches the next document for `call` (application Voice URL, action, redirect).
    func fetchDocument(_ call: VoiceCall, url: String, method: TwiMLMethod, parameters: [(String, String)]) {
        var all = CallParameters.standard(call.parent)
        let names = Set(parameters.map(\.0))
        all.removeAll { names.contains($0.0) }
        all += parameters
        let callSid = call.sid
        let webhooks = self.webhooks
        let token = call.authToken
        Task { [weak self] in
            do throws(ParleyError) {
                let document = try await webhooks.fetchTwiML(url: url, method: method, parameters: all, authToken: token)
                await self?.documentArrived(callSid: callSid, document: document, url: url)
            } catch {
                await self?.documentFailed(callSid: callSid, error: error)
            }
        }
    }

    private func documentArrived(callSid: String, document: TwiMLResponse, url: String) {
        guard let call = calls[callSid] else { return }
        if call.interpreter == nil {
            call.pendingDocument = (document, url: url)
            startTwiMLIfReady(call)
        } else {
            deliver(.documentFetched(document, url: url), to: call)
        }
    }

    private func documentFailed(callSid: String, error: ParleyError) {
        guard let call = calls[callSid] else { return }
        Log.info(.platform, "call \(callSid): TwiML fetch failed: \(error)")
        // The interpreter reports `.hangup`; the call ends with the webhook's error either way.
        call.interpreter = nil
        endCall(call, status: .failed, error: error)
    }

    /// Starts the interpreter once the document is there. (Media it plays waits for the caller's
    /// media to connect; `<Reject>`, `<Dial>` and `<Redirect>` need none.)
    func startTwiMLIfReady(_ call: VoiceCall) {
        guard call.interpreter == nil, let (document, url) = call.pendingDocument else { return }
        call.pendingDocument = nil
        var interpreter = TwiMLInterpreter(document: document, documentURL: url)
        let actions = interpreter.start(now: nowMilliseconds)
        call.interpreter = interpreter
        run(actions, call: call)
    }

    /// Hands an event to the call's interpreter and carries out what it decides.
    func deliver(_ event: TwiMLEvent, to call: VoiceCall) {
        guard var interpreter = call.interpreter else { return }
        let actions = interpreter.handle(event, now: nowMilliseconds)
        call.interpreter = interpreter
        run(actions, call: call)
    }

    private func timerFired(callSid: String, generation: Int) {
        guard let call = calls[callSid], call.timerGeneration == generation, var interpreter = call.interpreter else { return }
        let actions = interpreter.tick(now: nowMilliseconds)
        call.interpreter = interpreter
        run(actions, call: call)
    }

    /// Carries out the interpreter's actions, then re-arms its timer.
    func run(_ actions: [TwiMLAction], call: VoiceCall) {
        for action in actions {
            guard calls[call.sid] === call else { return }
            switch action {
            case .answer:
                answerParent(call)
            case .say(let text, let voice, let language, let loop):
                let speech = self.speech
                play(call) { () async throws(MediaError) -> any AudioSource in
                    let audio = try await speech.synthesize(text, voice: voice, language: language)
                    return PCMSource(audio, loop: loop)
                }
            case .play(let url, let loop):
                let fetcher = self.fetcher
                play(call) { () async throws(MediaError) -> any AudioSource in
                    PCMSource(try await fetcher.audio(for: url), loop: loop)
                }
            case .playDigits(let digits):
                play(call) { () async throws(MediaError) -> any AudioSource in try DigitsSource(digits) }
            case .stopMedia:
                stopMedia(call)
            case .dial(let request):
                startDial(call, request: request)
            case .cancelDial:
                cancelDial(call)
            case .record(let request):
                startRecording(call, request: request)
            case .stopRecording:
                stopRecording(call, deliverResult: false)
            case .fetch(let url, let method, let parameters):
                fetchDocument(call, url: url, method: method, parameters: parameters)
            case .reject(let reason):
                let error = reason == .busy ? ParleyError(.busyHere, reason: "the application rejected the call as busy")
                    : ParleyError(.decline, reason: "the application rejected the call")
                endCall(call, status: reason == .busy ? .busy : .failed, error: error)
            case .hangup:
                hangUpFromTwiML(call)
            }
        }
        armTimer(call)
    }

    /// The document ended the call (`<Hangup>`, its end, a failure).
    func hangUpFromTwiML(_ call: VoiceCall) {
        if let reason = call.interpreter?.failureReason {
            endCall(call, status: .failed, error: ParleyError(.internalServer, reason: reason))
        } else if !call.isAnswered, let error = call.unansweredDialError {
            endCall(call, status: Self.status(forDialError: error), error: error)
        } else {
            endCall(call, status: call.isAnswered ? .completed : .canceled, error: nil)
        }
    }

    private func armTimer(_ call: VoiceCall) {
        call.timerTask?.cancel()
        call.timerTask = nil
        guard calls[call.sid] === call, let deadline = call.interpreter?.nextDeadline else { return }
        call.timerGeneration += 1
        let generation = call.timerGeneration
        let delay = max(0, deadline - nowMilliseconds)
        let callSid = call.sid
        call.timerTask = Task { [weak self, clock] in
            try? await clock.sleep(for: .milliseconds(delay))
            guard !Task.isCancelled else { return }
            await self?.timerFired(callSid: callSid, generation: generation)
        }
    }

    // MARK: - Server media

    /// Prepares a source off the actor, then plays it to the caller; reports `.mediaFinished` when
    /// it ends by itself. A source that cannot be prepared is skipped (Twilio logs a warning and
    /// goes on), after logging why.
    func play(_ call: VoiceCall, _ make: @escaping @Sendable () async throws(MediaError) -> any AudioSource) {
        call.mediaGeneration += 1
        let generation = call.mediaGeneration
        let callSid = call.sid
        Task { [weak self] in
            do {
                let source = try await make()
                await self?.startPlayback(callSid: callSid, generation: generation, source: source)
            } catch {
                Log.warning(.platform, "call \(callSid): cannot play media: \(error)")
                await self?.playbackEnded(callSid: callSid, generation: generation, outcome: .finished)
            }
        }
    }

    func startPlayback(callSid: String, generation: Int, source: any AudioSource) {
        guard let call = calls[callSid], call.mediaGeneration == generation else { return }
        guard call.mediaConnected, let session = call.parent.mediaID else {
            call.pendingPlayback = (generation, source)
            return
        }
        do {
            try player.start(source, session: session.rawValue, codec: codec(of: call.parent)) { [weak self] outcome in
                Task { await self?.playbackEnded(callSid: callSid, generation: generation, outcome: outcome) }
            }
        } catch {
            Log.warning(.platform, "call \(callSid): cannot start playback: \(error)")
            playbackEnded(callSid: callSid, generation: generation, outcome: .finished)
        }
    }

    private func playbackEnded(callSid: String, generation: Int, outcome: MediaPlayback.Outcome) {
        guard let call = calls[callSid], call.mediaGeneration == generation, outcome == .finished else { return }
        deliver(.mediaFinished, to: call)
    }

    /// Stops whatever the server plays to the caller (without reporting it finished).
    func stopMedia(_ call: VoiceCall) {
        call.mediaGeneration += 1
        if let session = call.parent.mediaID { player.stop(session: session.rawValue) }
    }

    /// Plays a non-TwiML source (a beep) to a leg.
    func playTone(_ source: some AudioSource, to leg: CallLeg) {
        guard let session = leg.mediaID else { return }
        _ = try? player.start(source, session: session.rawValue, codec: codec(of: leg))
    }

    /// Plays media every call shares (ringback, hold music, silence), encoded once per codec.
    func playShared(_ media: SharedMedia, to leg: CallLeg) {
        guard let session = leg.mediaID else { return }
        _ = try? player.start(media, session: session.rawValue, codec: codec(of: leg))
    }

    func codec(of leg: CallLeg) -> CallAudioCodec {
        guard let id = leg.mediaID, let codec = mediaCodecs[id] else { return .opus }
        return codec
    }

    static func status(forDialError error: ParleyError) -> CallStatus {
        switch error.code {
        case .busyHere: .busy
        case .requestTimeout: .noAnswer
        case .requestTerminated: .canceled
        default: .failed
        }
    }
}
