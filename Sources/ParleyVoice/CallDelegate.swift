import CallQuality
import ParleyCore

/// A call's state changes (the seed's `TVOCallDelegate`). Methods run on the call's delegate queue.
public protocol CallDelegate: AnyObject, Sendable {
    /// The callee is being alerted; once, before `callDidConnect`.
    func callDidStartRinging(_ call: Call)
    /// The call is connected: audio flows both ways.
    func callDidConnect(_ call: Call)
    /// The call never connected.
    func callDidFailToConnect(_ call: Call, error: ParleyError)
    /// The call ended: `error` is nil when a party hung up normally.
    func callDidDisconnect(_ call: Call, error: ParleyError?)
    /// Media or signaling dropped; the SDK is reconnecting (53405 media, 53001 signaling).
    func call(_ call: Call, isReconnectingWithError error: ParleyError)
    /// The call recovered after `isReconnectingWithError`.
    func callDidReconnect(_ call: Call)
    /// The set of active quality warnings changed.
    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
              previousWarnings: Set<QualityWarning>)
    /// The far end pressed a key (an RFC 4733 event began): a Parley addition, once per key.
    func call(_ call: Call, didReceiveDigit digit: String)
}

extension CallDelegate {
    public func callDidStartRinging(_ call: Call) {}
    public func call(_ call: Call, isReconnectingWithError error: ParleyError) {}
    public func callDidReconnect(_ call: Call) {}
    public func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
                     previousWarnings: Set<QualityWarning>) {}
    public func call(_ call: Call, didReceiveDigit digit: String) {}
}

/// Call messages of one call (the seed's `TVOCallMessageDelegate`).
public protocol CallMessageDelegate: AnyObject, Sendable {
    /// A message from the other party (or the application) arrived.
    func messageReceived(for callSid: String, message: CallMessage)
    /// A message this side sent was delivered to the call.
    func messageSent(for callSid: String, voiceEventSid: String)
    /// A message this side sent was not delivered.
    func messageFailed(for callSid: String, voiceEventSid: String, error: ParleyError)
}

extension CallMessageDelegate {
    public func messageSent(for callSid: String, voiceEventSid: String) {}
    public func messageFailed(for callSid: String, voiceEventSid: String, error: ParleyError) {}
}

/// Incoming-call notifications (the seed's `TVONotificationDelegate`).
public protocol NotificationDelegate: AnyObject, Sendable {
    func callInviteReceived(_ callInvite: CallInvite)
    /// The invite went away before it was answered (caller hung up, answered elsewhere, timeout).
    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: ParleyError)
}
