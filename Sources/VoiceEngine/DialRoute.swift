import TwiML
import VoiceREST

/// Who carries the leg a `<Dial>` noun or a REST-created call asks for: clients today, SIP
/// endpoints and trunks next. The engine asks its routes in order (`VoiceService.register(_:)`
/// adds one); the first that makes a leg rings it. Nouns no route takes are skipped, and a `<Dial>`
/// none of whose nouns has a route fails with 31404 (`<Sip>` and `<Number>` until the SIP gateway
/// exists). Each route defines its legs' `LegEndpoint`, which the engine talks to from then on.
protocol DialRoute: Sendable {
    /// A new child leg of `call` for `noun` (not yet stored or indexed), or nil when the noun is
    /// not this route's kind.
    func makeLeg(for noun: TwiMLDialNoun, of call: VoiceCall, request: DialRequest, now: Int64) -> CallLeg?
    /// The endpoint of a REST-created call (the call's own leg), or nil when its `To` is not this
    /// route's kind.
    func outboundEndpoint(for request: OutboundCallRequest) -> (any LegEndpoint)?
    /// Alerts the leg's callee: a `<Dial>` child, or the leg of a REST-created call. The route
    /// reports back on the engine: `legAlerted` once the callee is alerted, `legRefused` when it
    /// cannot be reached or declines, `answerChild` / `answerOutbound` when it answers.
    func ring(_ leg: CallLeg, of call: VoiceCall, engine: isolated VoiceService)
}
