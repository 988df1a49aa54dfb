import ParleyCore
import ParleyVoice

/// A `NotificationDelegate` that hands each incoming invite to a block (cancelled invites are
/// ignored). The SDK holds delegates weakly: keep the handler alive as long as its listener.
public final class InviteHandler: NotificationDelegate, Sendable {
    private let onInvite: @Sendable (CallInvite) -> Void

    public init(onInvite: @escaping @Sendable (CallInvite) -> Void) { self.onInvite = onInvite }

    public func callInviteReceived(_ callInvite: CallInvite) { onInvite(callInvite) }
    public func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: ParleyError) {}
}
