import ParleyStore

/// Sends incoming-call pushes to a binding (APNs VoIP, webhook relay). The engine's view of the
/// push providers, so it does not depend on how each delivers.
protocol InviteNotifier: Sendable {
    func notify(_ notice: IncomingCallNotice, binding: PushBinding) async -> PushOutcome
}

/// What a push carries: an invite for a ringing call, or its cancellation.
struct IncomingCallNotice: Sendable {
    enum Kind: Sendable { case invite, cancel }
    var kind: Kind
    var callSid: String
    var accountSid: String
    var from: String
    var to: String
    var parameters: [(String, String)]
    /// Random per invite: the app hands it back when it accepts (not needed by Parley's signaling,
    /// which authenticates the accepting client by its access token).
    var bridgeToken: String
}

enum PushOutcome: Sendable, Equatable {
    case delivered
    case failed(String)
    /// The provider says the device token is dead: the binding is deleted.
    case unregistered
}
