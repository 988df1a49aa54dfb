import JSONWire
import ParleyCore

/// A grant in an access token, keyed in `grants` as Twilio's libraries key it.
public enum AccessTokenGrant: Sendable, Equatable {
    case voice(VoiceGrant)
    case video(VideoGrant)

    /// The member name under `grants`.
    public var key: String {
        switch self {
        case .voice: return "voice"
        case .video: return "video"
        }
    }

    /// The grant's JSON, in the shape of the `twilio` library's `to_payload()`.
    public var json: JSONObject {
        switch self {
        case .voice(let g): return g.json
        case .video(let g): return g.json
        }
    }
}

/// Programmable Voice grant: `grants.voice`.
///
/// JSON shape (as the `twilio` library writes it): `{"incoming":{"allow":true},
/// "outgoing":{"application_sid":"AP…","params":{…}},"push_credential_sid":"CR…","endpoint_id":"…"}`,
/// each member present only when set.
public struct VoiceGrant: Sendable, Equatable {
    /// `incoming.allow`: the client may receive calls.
    public var incomingAllow: Bool
    /// `outgoing.application_sid`: the TwiML application for outgoing calls.
    public var outgoingApplicationSid: String?
    /// `outgoing.params`: parameters passed to that application. Scalar JSON values are read as
    /// their text (`5` → `"5"`); nested objects or arrays are rejected.
    public var outgoingApplicationParams: [String: String]
    /// `push_credential_sid`: the push credential for incoming-call notifications.
    public var pushCredentialSid: String?
    /// `endpoint_id`.
    public var endpointId: String?

    public init(incomingAllow: Bool = false, outgoingApplicationSid: String? = nil,
                outgoingApplicationParams: [String: String] = [:], pushCredentialSid: String? = nil,
                endpointId: String? = nil) {
        self.incomingAllow = incomingAllow
        self.outgoingApplicationSid = outgoingApplicationSid
        self.outgoingApplicationParams = outgoingApplicationParams
        self.pushCredentialSid = pushCredentialSid
        self.endpointId = endpointId
    }

    /// The grant's JSON. Like the `twilio` library, `params` is written only with an application SID.
    public var json: JSONObject {
        var out = JSONObject()
        if incomingAllow { out["incoming"] = .object(["allow": .bool(true)]) }
        if let sid = outgoingApplicationSid, !sid.isEmpty {
            var outgoing: JSONObject = ["application_sid": .string(sid)]
            if !outgoingApplicationParams.isEmpty {
                var params = JSONObject()
                for key in outgoingApplicationParams.keys.sorted() { params[key] = .string(outgoingApplicationParams[key]!) }
                outgoing["params"] = .object(params)
            }
            out["outgoing"] = .object(outgoing)
        }
        if let sid = pushCredentialSid, !sid.isEmpty { out["push_credential_sid"] = .string(sid) }
        if let id = endpointId, !id.isEmpty { out["endpoint_id"] = .string(id) }
        return out
    }

    /// Reads `grants.voice`; throws 20106 if a member has the wrong type.
    public init(json: JSONObject) throws(ParleyError) {
        self.init()
        if let incoming = json["incoming"] {
            guard let object = incoming.objectValue else { throw Self.bad("voice.incoming is not an object") }
            switch object["allow"] {
            case nil: break
            case .bool(let allow)?: incomingAllow = allow
            default: throw Self.bad("voice.incoming.allow is not a boolean")
            }
        }
        if let outgoing = json["outgoing"] {
            guard let object = outgoing.objectValue else { throw Self.bad("voice.outgoing is not an object") }
            outgoingApplicationSid = try Self.optionalString(object["application_sid"], "voice.outgoing.application_sid")
            if let params = object["params"] {
                guard let p = params.objectValue else { throw Self.bad("voice.outgoing.params is not an object") }
                for key in p.keys {
                    switch p[key]! {
                    case .string(let s): outgoingApplicationParams[key] = s
                    case .integer(let n): outgoingApplicationParams[key] = String(n)
                    case .double(let d): outgoingApplicationParams[key] = String(d)
                    case .bool(let b): outgoingApplicationParams[key] = b ? "true" : "false"
                    default: throw Self.bad("voice.outgoing.params.\(key) is not a scalar")
                    }
                }
            }
        }
        pushCredentialSid = try Self.optionalString(json["push_credential_sid"], "voice.push_credential_sid")
        endpointId = try Self.optionalString(json["endpoint_id"], "voice.endpoint_id")
    }

    static func optionalString(_ value: JSONValue?, _ name: String) throws(ParleyError) -> String? {
        guard let value else { return nil }
        guard let s = value.stringValue else { throw bad("\(name) is not a string") }
        return s
    }

    static func bad(_ reason: String) -> ParleyError { ParleyError(.accessTokenGrantsInvalid, reason: reason) }
}

/// Programmable Video grant: `grants.video` = `{"room":"…"}` (room optional).
public struct VideoGrant: Sendable, Equatable {
    /// The room the client may join; nil for any room.
    public var room: String?
    /// Parley's finer grants (not in Twilio's tokens, so nil means allowed): publish audio and
    /// video tracks, receive other participants' tracks, publish data tracks.
    public var canPublish: Bool?
    public var canSubscribe: Bool?
    public var canPublishData: Bool?

    public init(room: String? = nil, canPublish: Bool? = nil, canSubscribe: Bool? = nil, canPublishData: Bool? = nil) {
        self.room = room
        self.canPublish = canPublish
        self.canSubscribe = canSubscribe
        self.canPublishData = canPublishData
    }

    /// The grant's JSON.
    public var json: JSONObject {
        var out = JSONObject()
        if let room, !room.isEmpty { out["room"] = .string(room) }
        if let canPublish { out["canPublish"] = .bool(canPublish) }
        if let canSubscribe { out["canSubscribe"] = .bool(canSubscribe) }
        if let canPublishData { out["canPublishData"] = .bool(canPublishData) }
        return out
    }

    /// Reads `grants.video`; throws 20106 if `room` is not a string or a finer grant not a boolean.
    public init(json: JSONObject) throws(ParleyError) {
        room = try VoiceGrant.optionalString(json["room"], "video.room")
        func flag(_ key: String) throws(ParleyError) -> Bool? {
            switch json[key] {
            case nil, .null?: return nil
            case .bool(let value)?: return value
            default: throw ParleyError(.accessTokenGrantsInvalid, reason: "grants.video.\(key) must be a boolean")
            }
        }
        canPublish = try flag("canPublish")
        canSubscribe = try flag("canSubscribe")
        canPublishData = try flag("canPublishData")
    }
}
