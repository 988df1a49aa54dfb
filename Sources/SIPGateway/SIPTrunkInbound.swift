import Foundation
import ParleyCore
import ParleyNet
import ParleyStore
import SIP
import SIPWire
import VoiceEngine

/// Calls from a trunk (Twilio's Elastic SIP Trunking origination): an INVITE whose source address
/// is in one of an account's `SIP/IpAccessControlLists`, to a number that account declared in
/// `IncomingPhoneNumbers`, is not challenged: the number's `VoiceUrl` runs it, with `From`/`To`
/// as numbers. Anything else (an unknown address, a number no listed account has) is left to the
/// digest challenge as from any phone.
enum SIPTrunkInbound {
    static func route(_ invite: SIPRequest, callee: SIPURI, from peer: SIPPeer, store: any PlatformStore) -> RemoteCallRequest? {
        guard let user = callee.user, let number = e164(user),
              let lists = try? store.ipAccessControlLists(containing: host(of: peer.address)), !lists.isEmpty,
              let entry = try? store.phoneNumber(number: number), lists.contains(where: { $0.accountSid == entry.accountSid }),
              let url = entry.draft.voiceURL, !url.isEmpty else { return nil }
        let caller = invite.from.flatMap { from -> String? in
            guard case .sip(let uri) = from.uri else { return nil }
            return uri.user.flatMap(e164) ?? "\(uri)"
        } ?? ""
        var request = RemoteCallRequest(accountSid: entry.accountSid, from: caller, to: number)
        request.voiceURL = url
        request.voiceMethod = entry.draft.voiceMethod
        request.statusCallback = entry.draft.statusCallback
        request.parameters = [("SipCallId", invite.callID ?? "")]
        for field in invite.headers.customFields { request.parameters.append(("SipHeader_\(field.name)", field.value)) }
        return request
    }

    /// A Request-URI user as E.164, with or without its `+` (carriers send both forms).
    private static func e164(_ user: String) -> String? { PhoneNumber.e164(user, requirePlus: false) }

    /// The address without its port (`127.0.0.1`, `2001:db8::1`), as IP access control lists hold it.
    static func host(of address: SocketAddress) -> String {
        var text = address.description
        if let colon = text.lastIndex(of: ":") { text = String(text[..<colon]) }
        return text.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }
}
