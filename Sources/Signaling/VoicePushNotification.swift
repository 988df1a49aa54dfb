import HTTPWire
import JSONWire

/// An incoming-call or cancellation notification with Twilio's payload keys, so that the voice
/// SDK's `handleNotification` turns it into a `CallInvite` or `CancelledCallInvite`
/// (seed 000: `twi_message_type` is `twilio.voice.call` or `twilio.voice.cancel`).
public struct VoicePushNotification: Sendable, Equatable {
    public enum MessageType: String, Sendable {
        case call = "twilio.voice.call"
        case cancel = "twilio.voice.cancel"
    }

    public var messageType: MessageType
    /// `twi_call_sid`: the `CA…` SID of the call.
    public var callSid: String
    /// `twi_account_sid`.
    public var accountSid: String
    /// `twi_from`: the caller, e.g. `client:alice`.
    public var from: String
    /// `twi_to`: the callee, e.g. `client:bob`.
    public var to: String
    /// `twi_message_id`: unique per notification.
    public var messageID: String
    /// `twi_bridge_token`: the token the SDK presents to answer or reject (invites only).
    public var bridgeToken: String?
    /// `twi_params`: the call's custom parameters, sent URL-form-encoded, in order.
    public var customParameters: [(name: String, value: String)]

    public init(messageType: MessageType, callSid: String, accountSid: String, from: String, to: String,
                messageID: String, bridgeToken: String? = nil, customParameters: [(name: String, value: String)] = []) {
        self.messageType = messageType
        self.callSid = callSid
        self.accountSid = accountSid
        self.from = from
        self.to = to
        self.messageID = messageID
        self.bridgeToken = bridgeToken
        self.customParameters = customParameters
    }

    /// The callee's identity: `to` without its `client:` prefix.
    public var recipientIdentity: String {
        to.hasPrefix("client:") ? String(to.dropFirst("client:".count)) : to
    }

    /// The payload object: the `twi_*` keys (`twi_bridge_token` and `twi_params` only when present).
    public var payload: JSONObject {
        var object: JSONObject = [
            "twi_message_type": .string(messageType.rawValue),
            "twi_call_sid": .string(callSid),
            "twi_account_sid": .string(accountSid),
            "twi_from": .string(from),
            "twi_to": .string(to),
            "twi_message_id": .string(messageID),
        ]
        if let bridgeToken { object["twi_bridge_token"] = .string(bridgeToken) }
        if !customParameters.isEmpty {
            object["twi_params"] = .string(FormURLEncoding.encode(customParameters.map { ($0.name, $0.value) }))
        }
        return object
    }

    /// The payload serialized as compact JSON.
    public var payloadJSON: [UInt8] { JSONValue.object(payload).serialized() }

    /// Reads a payload back (as the SDK's `handleNotification` does); nil unless it is a Twilio
    /// voice notification: a known `twi_message_type` and a `twi_call_sid`. Missing optional
    /// keys become empty strings; members that are not strings are treated as missing.
    public init?(payload: JSONObject) {
        var strings: [String: String] = [:]
        for key in payload.keys {
            if let value = payload[key]?.stringValue { strings[key] = value }
        }
        self.init(dictionary: strings)
    }

    /// Reads a payload given as a string dictionary (see `init?(payload:)`).
    public init?(dictionary: [String: String]) {
        guard let type = dictionary["twi_message_type"].flatMap(MessageType.init(rawValue:)),
              let callSid = dictionary["twi_call_sid"], !callSid.isEmpty else { return nil }
        let params = dictionary["twi_params"].flatMap { try? FormURLEncoding.decode($0) } ?? []
        self.init(messageType: type, callSid: callSid, accountSid: dictionary["twi_account_sid"] ?? "",
                  from: dictionary["twi_from"] ?? "", to: dictionary["twi_to"] ?? "",
                  messageID: dictionary["twi_message_id"] ?? "", bridgeToken: dictionary["twi_bridge_token"],
                  customParameters: params.map { (name: $0.0, value: $0.1) })
    }

    /// Reads a JSON payload; nil unless it is a JSON object that `init?(payload:)` accepts.
    public init?(json: some Collection<UInt8>) {
        guard let object = (try? JSONValue.parse(json, maxDepth: 8))?.objectValue else { return nil }
        self.init(payload: object)
    }

    public static func == (a: VoicePushNotification, b: VoicePushNotification) -> Bool {
        a.messageType == b.messageType && a.callSid == b.callSid && a.accountSid == b.accountSid && a.from == b.from
            && a.to == b.to && a.messageID == b.messageID && a.bridgeToken == b.bridgeToken
            && a.customParameters.map(\.name) == b.customParameters.map(\.name)
            && a.customParameters.map(\.value) == b.customParameters.map(\.value)
    }
}
