import Dispatch
import ParleyCore
import Signaling
import Synchronization

/// Call messages (the seed's `TVOCallMessage` flow) for the call's `CallMessageDelegate`.
extension Call {
    func received(_ message: Signaling.CallMessage) {
        guard let delegate = options.callMessageDelegate else { return }
        var copy = CallMessage(content: message.body, contentType: message.contentType, messageType: message.messageType)
        copy.voiceEventSid = message.messageId
        let sid = message.callSid, received = copy
        delegateQueue.async { delegate.messageReceived(for: sid, message: received) }
    }

    func messageAcknowledged(_ voiceEventSid: String, error: ParleyError?) {
        let (mine, sid) = snapshot.withLock { ($0.sentMessages.remove(voiceEventSid) != nil, $0.machine.sid ?? "") }
        guard mine, let delegate = options.callMessageDelegate else { return }
        delegateQueue.async {
            if let error {
                delegate.messageFailed(for: sid, voiceEventSid: voiceEventSid, error: error)
            } else {
                delegate.messageSent(for: sid, voiceEventSid: voiceEventSid)
            }
        }
    }
}
