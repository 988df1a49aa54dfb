import ParleyCore
import SIP
import SIPWire
import Synchronization
import VoiceEngine

/// The answered-dialog table is shared by both sides of the B2BUA: a call the server placed
/// (`SIPOutboundCalls`) joins it once its 2xx is acknowledged, and from then on everything inside
/// its dialog runs on the same code as a phone's call: the phone's re-INVITEs and UPDATEs (hold,
/// resume, a new address; RFC 3264 §8.4), its INFO keys (RFC 6086), our re-INVITE `a=sendonly`
/// when the other party holds, RFC 4028 session timers, its BYE, and our BYE when the engine ends it.
extension SIPCallTable {
    /// What a dialed leg brings to the table when its 2xx arrives.
    struct DialedDialog {
        let callID: String
        /// Our INVITE and the phone's 2xx to it, and the ACK we sent (sent again for a repeated 2xx, §13.2.2.4).
        let invite: SIPRequest
        let response: SIPResponse
        let ack: SIPRequest
        let dialog: SIPDialog
        let peer: SIPPeer
        let mediaID: MediaLegID
        /// The engine's leg (its hold and keys are told to it).
        let callSid: String
    }

    /// Takes over the dialog of a call we placed (RFC 3261 §13.2.2.4: it is established and
    /// acknowledged); a session timer runs when the 2xx carries `Session-Expires` (RFC 4028 §7.2).
    func adoptDialed(_ dialed: DialedDialog) {
        let now = context.clock()
        var call = Call(invite: dialed.invite, peer: dialed.peer, dialog: dialed.dialog, callSid: dialed.callSid, mediaID: dialed.mediaID)
        call.answered = true
        call.dialed = true
        // Our INVITE was the last one: its ACK is ours, so nothing waits for one (§14.1).
        let cseq = dialed.invite.cseq?.number ?? 0
        call.acknowledgedCSeq = cseq
        call.inDialog.lastInviteCSeq = cseq
        call.inDialog.lastACK = dialed.ack
        call.inDialog.peerAllowsUpdate = dialed.response.allow.contains(.update)
        call.inDialog.sessionTimer = SIPSessionTimer.accepted(dialed.response, now: now)
        let timed = call.inDialog.sessionTimer != nil
        calls.withLock { $0[dialed.callID] = call }
        if timed { scheduleSessionCheck(callID: dialed.callID) }
    }

    /// Whether the dialog of `callID` is in the table (a dialed leg once it joined).
    func holds(callID: String) -> Bool { calls.withLock { $0[callID] != nil } }
}
