import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// `IncomingPhoneNumbers.json` and `IncomingPhoneNumbers/{PN}.json`, as the vendor shapes them: the
/// numbers a SIP trunk delivers calls for (an address in one of the account's
/// `SIP/IpAccessControlLists` calling `sip:<number>@…`), each with the `VoiceUrl` its calls run.
/// Parley buys no numbers: a number is whatever E.164 the carrier sends, declared here.
extension TwilioRESTRouter {
    func listOrCreatePhoneNumbers(_ context: Context) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        let accountSid = context.account.sid
        let p = context.parameters
        if context.method == "POST" {
            guard let number = p["PhoneNumber"], !number.isEmpty else {
                throw RESTFailure(status: 400, code: ParleyError.Code(rawValue: 21452), message: "No PhoneNumber is specified")
            }
            let draft = PhoneNumberDraft(phoneNumber: try Self.e164(number), friendlyName: p["FriendlyName"] ?? number,
                                         voiceURL: try Self.url(p, "VoiceUrl"), voiceMethod: try Self.method(p, "VoiceMethod", fallback: "POST"),
                                         statusCallback: try Self.url(p, "StatusCallback"),
                                         statusCallbackMethod: try Self.method(p, "StatusCallbackMethod", fallback: "POST"))
            try Self.checkFriendlyName(draft.friendlyName)
            do {
                return Self.json(Self.phoneNumberJSON(try store.createPhoneNumber(draft, accountSid: accountSid)), status: 201)
            } catch .conflict {
                throw RESTFailure(status: 400, code: ParleyError.Code(rawValue: 21422), message: "PhoneNumber \(draft.phoneNumber) is not available")
            } catch {
                throw .store(error)
            }
        }
        let paging = try RESTPaging(p)
        let filter = try p["PhoneNumber"].map { (n: String) throws(RESTFailure) in try Self.e164(n) }
        let all = try storeCall { () throws(StoreError) in try store.phoneNumbers(accountSid: accountSid, phoneNumber: filter) }
        let page = paging.slice(all)
        return Self.json(paging.envelope(key: "incoming_phone_numbers", records: page.records.map(Self.phoneNumberJSON),
                                         hasMore: page.hasMore, path: context.path, filters: filter.map { [("PhoneNumber", $0)] } ?? []))
    }

    func phoneNumber(_ context: Context, sid: String) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST, DELETE")
        guard var number = try storeCall({ () throws(StoreError) in try store.phoneNumber(sid: sid) }),
              number.accountSid == context.account.sid else { throw .notFound(context.path) }
        switch context.method {
        case "POST":
            let p = context.parameters
            if let name = p["FriendlyName"] {
                try Self.checkFriendlyName(name)
                number.draft.friendlyName = name
            }
            if p.contains("VoiceUrl") { number.draft.voiceURL = try Self.url(p, "VoiceUrl") }
            number.draft.voiceMethod = try Self.method(p, "VoiceMethod", fallback: number.draft.voiceMethod)
            if p.contains("StatusCallback") { number.draft.statusCallback = try Self.url(p, "StatusCallback") }
            number.draft.statusCallbackMethod = try Self.method(p, "StatusCallbackMethod", fallback: number.draft.statusCallbackMethod)
            let edited = number
            return Self.json(Self.phoneNumberJSON(try storeCall { () throws(StoreError) in try store.updatePhoneNumber(edited) }))
        case "DELETE":
            guard try storeCall({ () throws(StoreError) in try store.deletePhoneNumber(sid: sid) }) else { throw .notFound(context.path) }
            return .status(204)
        default:
            return Self.json(Self.phoneNumberJSON(number))
        }
    }

    /// The number as E.164 (`PhoneNumber.e164`); 21421 otherwise, as the vendor answers an invalid `PhoneNumber`.
    static func e164(_ text: String) throws(RESTFailure) -> String {
        guard let number = PhoneNumber.e164(text) else {
            throw RESTFailure(status: 400, code: ParleyError.Code(rawValue: 21421), message: "PhoneNumber \(text) is not E.164 (+ and 2 to 15 digits)")
        }
        return number
    }

    static func phoneNumberJSON(_ n: IncomingPhoneNumber) -> JSONValue {
        let d = n.draft
        return .object([
            "account_sid": .string(n.accountSid), "api_version": .string(RESTResourceJSON.apiVersion),
            "capabilities": .object(["voice": .bool(true), "sms": .bool(false), "mms": .bool(false), "fax": .bool(false)]),
            "date_created": .string(RESTTime.rfc2822(n.createdAt)), "date_updated": .string(RESTTime.rfc2822(n.updatedAt)),
            "friendly_name": .string(d.friendlyName), "phone_number": .string(d.phoneNumber), "sid": .string(n.sid),
            "status": .string("in-use"), "status_callback": d.statusCallback.map(JSONValue.string) ?? .null,
            "status_callback_method": .string(d.statusCallbackMethod), "trunk_sid": .null,
            "uri": .string("\(RESTResourceJSON.accountPath(n.accountSid))/IncomingPhoneNumbers/\(n.sid).json"),
            "voice_application_sid": .null, "voice_caller_id_lookup": .bool(false), "voice_fallback_method": .string("POST"),
            "voice_fallback_url": .null, "voice_method": .string(d.voiceMethod), "voice_receive_mode": .string("voice"),
            "voice_url": d.voiceURL.map(JSONValue.string) ?? .null,
        ])
    }
}
