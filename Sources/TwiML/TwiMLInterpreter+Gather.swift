/// `<Gather>`: prompts play in order while DTMF is collected; the first digit stops them. It ends
/// on `numDigits`, on `finishOnKey`, or `timeout` seconds after the prompts finished or after the
/// last digit.
struct GatherState: Sendable {
    var gather: TwiMLGather
    var promptIndex = 0
    /// A `<Say>`/`<Play>` prompt is playing.
    var playing = false
    /// A `<Pause>` prompt ends at this time.
    var pauseUntil: Int64?
    var digits = ""
    /// The input timeout, once the prompts are done or a digit arrived.
    var deadline: Int64?

    init(gather: TwiMLGather) { self.gather = gather }

    var promptsDone: Bool { promptIndex >= gather.prompts.count }
}

extension TwiMLInterpreter {
    static let dtmfKeys: Set<Character> = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#"]

    /// Starts the next prompt, or the input timeout once all prompts are done.
    func continuePrompts(_ g: inout GatherState, now: Int64, into actions: inout [TwiMLAction]) {
        while !g.promptsDone {
            switch g.gather.prompts[g.promptIndex] {
            case .say(let say):
                actions.append(sayAction(say))
                g.playing = true
                return
            case .play(let play):
                actions.append(playAction(play))
                g.playing = true
                return
            case .pause(let pause) where pause.length > 0:
                g.pauseUntil = now + Int64(pause.length) * 1000
                return
            case .pause:
                g.promptIndex += 1
            }
        }
        g.deadline = now + Int64(g.gather.timeout) * 1000
    }

    mutating func gatherDigit(_ key: Character, _ state: GatherState, now: Int64, into actions: inout [TwiMLAction]) {
        var g = state
        guard g.gather.input.contains(.dtmf), Self.dtmfKeys.contains(key) else { return }
        if g.playing { actions.append(.stopMedia) }
        g.playing = false
        g.pauseUntil = nil
        g.promptIndex = g.gather.prompts.count
        if g.gather.finishOnKey.contains(key) {
            return finishGather(g, finishedOnKey: String(key), now: now, into: &actions)
        }
        g.digits.append(key)
        if let limit = g.gather.numDigits, g.digits.count >= limit {
            return finishGather(g, finishedOnKey: "", now: now, into: &actions)
        }
        g.deadline = now + Int64(g.gather.timeout) * 1000
        phase = .gathering(g)
    }

    mutating func gatherTick(_ state: GatherState, now: Int64, into actions: inout [TwiMLAction]) {
        var g = state
        if let until = g.pauseUntil, now >= until {
            g.pauseUntil = nil
            g.promptIndex += 1
            continuePrompts(&g, now: now, into: &actions)
        }
        if let deadline = g.deadline, now >= deadline {
            return finishGather(g, finishedOnKey: "", now: now, into: &actions)
        }
        phase = .gathering(g)
    }

    /// With digits (or `actionOnEmptyResult`), requests the action (default: this document) with
    /// `Digits`; without, continues with the next verb.
    mutating func finishGather(_ g: GatherState, finishedOnKey: String, now: Int64, into actions: inout [TwiMLAction]) {
        guard !g.digits.isEmpty || g.gather.actionOnEmptyResult else { return next(now: now, into: &actions) }
        fetch(resolve(g.gather.action ?? documentURL), g.gather.method,
              [("Digits", g.digits), ("FinishedOnKey", finishedOnKey)], into: &actions)
    }
}
