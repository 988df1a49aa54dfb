import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// Resources in the vendor's v2010 JSON shape (snake_case names, RFC 2822 dates, `uri` relative to
/// the API root), with the fields the `twilio` library reads. Parley has no prices, SMS, phone
/// numbers, SIP trunks, answering machine detection or STIR/SHAKEN: those fields are present with
/// null or default values, as the vendor's are when unused (docs/voice.md lists them).
enum RESTResourceJSON {
    static let apiVersion = "2010-04-01"

    static func accountPath(_ accountSid: String) -> String { "/\(apiVersion)/Accounts/\(accountSid)" }

    static func account(_ a: Account) -> JSONValue {
        let base = accountPath(a.sid)
        return .object([
            "sid": .string(a.sid),
            "owner_account_sid": .string(a.sid),
            "friendly_name": .string(a.friendlyName),
            "status": .string("active"),
            "type": .string("Full"),
            // The auth token is never returned: `parley account --show-auth-token` prints it.
            "auth_token": .null,
            "date_created": .string(RESTTime.rfc2822(a.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(a.createdAt)),
            "uri": .string(base + ".json"),
            "subresource_uris": .object([
                "applications": .string(base + "/Applications.json"),
                "calls": .string(base + "/Calls.json"),
                "conferences": .string(base + "/Conferences.json"),
                "keys": .string(base + "/Keys.json"),
                "recordings": .string(base + "/Recordings.json"),
            ]),
        ])
    }

    static func application(_ a: Application) -> JSONValue {
        .object([
            "account_sid": .string(a.accountSid),
            "api_version": .string(apiVersion),
            "date_created": .string(RESTTime.rfc2822(a.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(a.updatedAt)),
            "friendly_name": .string(a.friendlyName),
            "message_status_callback": .null,
            "sid": .string(a.sid),
            "sms_fallback_method": .string("POST"),
            "sms_fallback_url": .null,
            "sms_method": .string("POST"),
            "sms_status_callback": .null,
            "sms_url": .null,
            "status_callback": optional(a.statusCallback),
            "status_callback_method": .string(a.statusCallbackMethod),
            "uri": .string("\(accountPath(a.accountSid))/Applications/\(a.sid).json"),
            "voice_caller_id_lookup": .bool(false),
            "voice_fallback_method": .string("POST"),
            "voice_fallback_url": .null,
            "voice_method": .string(a.voiceMethod),
            "voice_url": optional(a.voiceURL),
            "public_application_connect_enabled": .bool(true),
        ])
    }

    /// A call; `forwardedFrom` is what the parent of a dialed leg was to (the vendor's
    /// `forwarded_from` for a forwarded call). `caller_name` is the caller's client identity.
    static func call(_ c: CallRecord, forwardedFrom: String? = nil) -> JSONValue {
        let path = "\(accountPath(c.accountSid))/Calls/\(c.sid)"
        // The vendor leaves duration empty while a call is live and writes "0" for calls never answered.
        let duration: JSONValue = c.duration.map { .string(String($0)) } ?? (c.status.isFinal ? .string("0") : .null)
        return .object([
            "sid": .string(c.sid),
            "date_created": .string(RESTTime.rfc2822(c.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(c.updatedAt)),
            "parent_call_sid": optional(c.parentCallSid),
            "account_sid": .string(c.accountSid),
            "to": .string(c.to),
            "to_formatted": .string(c.to),
            "from": .string(c.from),
            "from_formatted": .string(c.from),
            "phone_number_sid": .null,
            "status": .string(c.status.rawValue),
            "start_time": .string(RESTTime.rfc2822(c.startTime)),
            "end_time": c.endTime.map { .string(RESTTime.rfc2822($0)) } ?? .null,
            "duration": duration,
            "price": .null,
            "price_unit": .string("USD"),
            "direction": .string(c.direction),
            "answered_by": .null,
            "api_version": .string(apiVersion),
            "forwarded_from": optional(forwardedFrom),
            "group_sid": .null,
            "caller_name": optional(c.from.hasPrefix("client:") ? String(c.from.dropFirst("client:".count)) : nil),
            "queue_time": .string("0"),
            "stir_verstat": .null,
            "trunk_sid": .null,
            "uri": .string(path + ".json"),
            "subresource_uris": .object([
                "recordings": .string(path + "/Recordings.json"),
            ]),
        ])
    }

    /// A recording; `underCall` gives the call subresource's `uri` (`/Calls/CA…/Recordings/RE….json`)
    /// and its `track`. `mediaBase` is the public base URL for `media_url`.
    static func recording(_ r: RecordingRecord, mediaBase: String, underCall: Bool) -> JSONValue {
        let accountBase = accountPath(r.accountSid)
        let uri = underCall ? "\(accountBase)/Calls/\(r.callSid)/Recordings/\(r.sid).json"
                            : "\(accountBase)/Recordings/\(r.sid).json"
        var object: JSONObject = [
            "account_sid": .string(r.accountSid),
            "api_version": .string(apiVersion),
            "call_sid": .string(r.callSid),
            "conference_sid": .null,
            "date_created": .string(RESTTime.rfc2822(r.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(r.createdAt)),
            "start_time": .string(RESTTime.rfc2822(r.createdAt)),
            "duration": .string(String(r.duration)),
            "sid": .string(r.sid),
            "price": .null,
            "price_unit": .string("USD"),
            "status": .string(r.status),
            "channels": .integer(Int64(r.channels)),
            "source": .string(r.source),
            // Every failed recording is one the server could not write (see `RecordingFailure`).
            "error_code": r.status == RecordingFailure.status ? .integer(Int64(RecordingFailure.code.rawValue)) : .null,
            "uri": .string(uri),
            "encryption_details": .null,
            "subresource_uris": .object([
                "transcriptions": .string("\(accountBase)/Recordings/\(r.sid)/Transcriptions.json"),
            ]),
            // The vendor's media URL has no extension; `.wav` (or none) serves the file.
            "media_url": .string(trimmedBase(mediaBase) + "\(accountBase)/Recordings/\(r.sid)"),
        ]
        if underCall { object["track"] = .string("both") }
        return .object(object)
    }

    private static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }

    private static func trimmedBase(_ base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}
