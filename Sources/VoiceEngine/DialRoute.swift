import TwiML

/// Who carries the leg a `<Dial>` noun asks for: clients today, SIP endpoints and trunks next.
/// `startDial` asks the engine's routes in order; the first that makes a leg for a noun rings it.
/// Nouns no route takes are skipped, and a `<Dial>` none of whose nouns has a route fails with
/// 31404 (`<Sip>` and `<Number>` until the SIP gateway exists).
protocol DialRoute: Sendable {
    /// A new child leg of `call` for `noun` (not yet stored or indexed), or nil when the noun is
    /// not this route's kind.
    func makeLeg(for noun: TwiMLDialNoun, of call: VoiceCall, request: DialRequest, now: Int64) -> CallLeg?
    /// Alerts the leg's callee. The route reports back on the engine: `legRinging` once the callee
    /// is alerted, `childFailed` when it cannot be reached; its answer bridges the leg.
    func ring(_ leg: CallLeg, of call: VoiceCall, dial: DialOperation, engine: isolated VoiceService)
}
